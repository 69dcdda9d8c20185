package io.tpotstream.bench.jmh;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.bench.workload.SyntheticWorkload;
import io.tpotstream.bench.workload.WorkloadShape;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The aggregator's stage 1 per record: the streaming decoder (request id from the key), then
 * per-request state, samples into partial windows, closing windows on heartbeats, all in memory:
 * what each record costs before Kafka Streams' own work (polling, commits, changelogs).
 */
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
public class Stage1Benchmark extends JmhDefaults {
  static final int EVENTS = 100_000;

  private final TokenEventDecoder decoder = new TokenEventDecoder();
  private List<byte[]> keys;
  private List<byte[]> values;

  @Setup
  public void setUp() {
    keys = new ArrayList<>(EVENTS);
    values = new ArrayList<>(EVENTS);
    new SyntheticWorkload(
            WorkloadShape.chat(EVENTS, 1), StageSettings.DEFAULT_WINDOW, 1_767_225_600_000L)
        .generate(
            (event, partition) -> {
              String key = event.requestId() != null ? event.requestId() : event.producerId();
              keys.add(key.getBytes(StandardCharsets.UTF_8));
              values.add(TokenEventCodec.encode(event));
            });
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void stage1PerEvent(Blackhole bh) {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    Stage1Output out =
        new Stage1Output() {
          @Override
          public void partial(long windowStartMs, SeriesName series, WindowCounts counts) {
            bh.consume(counts);
          }

          @Override
          public void windowHealth(long windowStartMs, long pauseMaxUs, long lagMaxUs) {
            bh.consume(pauseMaxUs);
          }

          @Override
          public void closedThrough(long windowEndMs) {
            bh.consume(windowEndMs);
          }
        };
    for (int i = 0; i < keys.size(); i++) {
      DecodedEvent event = decoder.decode(keys.get(i), values.get(i));
      stage.onEvent(event, event.ts(), out);
    }
  }
}
