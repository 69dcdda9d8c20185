package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.stage2.MergeOutput;
import io.tpotstream.aggregator.stage2.StateSettings;
import io.tpotstream.aggregator.stage2.WindowMerger;
import io.tpotstream.common.Windows;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowSummary;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Stage 2 in Kafka Streams: the one task of the single-partition internal topic runs {@link
 * WindowMerger} on its in-memory working set (loaded at start, written inside every commit) and
 * forwards final summaries keyed by series, one INFO line each.
 */
final class Stage2Processor implements Processor<byte[], StageMessage, String, byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(Stage2Processor.class);

  private final String inputTopic;
  private final WindowMerger merger;
  private final Output output = new Output();
  private ProcessorContext<String, byte[]> context;
  private WorkingSetStore store;
  private LiveCommit commit;

  /** A merger of {@code partitions} stage-1 partitions; its working set is loaded in init. */
  Stage2Processor(int partitions, String inputTopic, StageSettings settings) {
    this.inputTopic = inputTopic;
    this.merger =
        new WindowMerger(
            partitions,
            settings.windowMs(),
            settings.clientLagThresholdUs(),
            settings.slo(),
            StateSettings.of(settings));
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
    this.store = context.getStateStore(AggregatorTopology.STAGE2_STORE);
    StoreState state = new StoreState(store.inner());
    merger.load(state);
    merger.open(inputTopic);
    commit = new LiveCommit(context);
    store.beforeCommit(
        () -> {
          merger.writeChanges(state);
          commit.committed();
        });
  }

  @Override
  public void process(Record<byte[], StageMessage> record) {
    commit.record();
    StageMessage m = record.value();
    if (m == null) {
      return;
    }
    output.causeTimestamp = record.timestamp();
    // No catch: an internal record is ours, and a failure may come after part of a window was
    // forwarded. The task fails instead, and exactly-once aborts that output and reads the record
    // again from the last commit; skipping it would lose or half-emit a window.
    switch (m.kind()) {
      case PARTIAL ->
          merger.partial(
              m.partition(), m.windowMs(), m.series(), m.encoded(), m.countsAt(), output);
      case HEALTH -> merger.windowHealth(m.partition(), m.windowMs(), m.pauseMaxUs(), m.lagMaxUs());
      case MARKER -> merger.closedThrough(m.partition(), m.windowMs(), output);
      case DEAD_LETTER -> {}
    }
  }

  @Override
  public void close() {
    if (store != null) {
      store.beforeCommit(null);
    }
    if (commit != null) {
      commit.close();
    }
  }

  private final class Output implements MergeOutput {
    long causeTimestamp;

    /**
     * INFO for live windows; DEBUG while a backlog is read (a day of events would log a line per
     * window and series, and the catching-up line already says how far the reading is).
     */
    private Level level() {
      return commit.isLive(causeTimestamp) ? Level.INFO : Level.DEBUG;
    }

    @Override
    public void summary(WindowSummary s, byte[] json) {
      // The window end, unless a record the broker accepted says that would be in its future.
      long timestamp = Math.min(s.windowEndMs(), causeTimestamp);
      context.forward(new Record<>(s.series(), json, timestamp, new RecordHeaders()));
      commit.windowClosed(causeTimestamp);
      Level level = level();
      if (!LOG.isEnabledForLevel(level)) {
        return; // a backlog's windows: no line, and none of its text built
      }
      LOG.atLevel(level)
          .log(
              "window {} .. {} {}: TPOT {}; TTFT {}; {} requests completed, {} failed, {} abandoned,"
                  + " {} late samples",
              Windows.iso(s.windowStartMs()),
              Windows.iso(s.windowEndMs()),
              s.series(),
              brief(s.tpot()),
              brief(s.ttft()),
              s.requests().completed(),
              s.requests().failed(),
              s.requests().abandoned(),
              s.lateSamples());
    }

    @Override
    public void droppedPartial(int partition, String series, long windowStartMs, long total) {
      LOG.warn(
          "dropped a partial of {} for the window starting {} from partition {}: that window was"
              + " already emitted ({} dropped so far)",
          series,
          Windows.iso(windowStartMs),
          partition,
          total);
    }

    @Override
    public void waiting(long windowEndMs, List<Integer> lagging) {
      LOG.atLevel(level())
          .log(
              "the window ending {} waits for input partitions {} to close it",
              Windows.iso(windowEndMs),
              lagging);
    }
  }

  private static String brief(LatencySummary s) {
    if (s == null || s.count() == 0) {
      return "no samples";
    }
    return s.count()
        + " samples, p50 "
        + s.p50Ms()
        + " ms, p99 "
        + s.p99Ms()
        + " ms, max "
        + s.maxMs()
        + " ms";
  }
}
