package io.tpotstream.bench.jmh;

import io.tpotstream.aggregator.stage.PartitionStage;
import io.tpotstream.aggregator.stage.Stage1Output;
import io.tpotstream.aggregator.stage.StageSettings;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.bench.workload.SyntheticWorkload;
import io.tpotstream.bench.workload.WorkloadShape;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.summary.WindowSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The aggregator's stage 1 logic per decoded event (per-request state, samples into partial
 * windows, closing windows on heartbeats) over in-memory state: what each record costs before Kafka
 * Streams' own work (stores, caching, changelogs, commits).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class Stage1Benchmark {
  static final int EVENTS = 100_000;

  private List<TokenEvent> events;

  @Setup
  public void setUp() {
    events = new ArrayList<>(EVENTS);
    new SyntheticWorkload(
            WorkloadShape.chat(EVENTS, 1), StageSettings.DEFAULT_WINDOW, 1_767_225_600_000L)
        .generate((event, partition) -> events.add(event));
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void stage1PerEvent(Blackhole bh) {
    PartitionStage stage =
        new PartitionStage(
            StageSettings.defaults(), new MapState(), new MapState(), new MapState());
    Stage1Output out =
        new Stage1Output() {
          @Override
          public void partial(WindowSummary partial) {
            bh.consume(partial);
          }

          @Override
          public void clientPause(long windowStartMs, long pauseMaxUs) {
            bh.consume(pauseMaxUs);
          }

          @Override
          public void closedThrough(long windowEndMs) {
            bh.consume(windowEndMs);
          }
        };
    for (TokenEvent e : events) {
      stage.onEvent(e, out);
    }
  }
}
