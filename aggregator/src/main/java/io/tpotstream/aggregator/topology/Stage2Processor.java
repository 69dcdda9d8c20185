package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.merge.MergeOutput;
import io.tpotstream.aggregator.merge.PartitionsChangedException;
import io.tpotstream.aggregator.merge.WindowMerger;
import io.tpotstream.common.Windows;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.util.List;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 2 in Kafka Streams: the one task of the single-partition internal topic runs {@link
 * WindowMerger} over its stores and forwards final summaries keyed by series, one INFO line each.
 */
final class Stage2Processor implements Processor<byte[], StageMessage, String, byte[]> {
  private static final Logger LOG = LoggerFactory.getLogger(Stage2Processor.class);

  private final int partitions;
  private final String inputTopic;
  private ProcessorContext<String, byte[]> context;
  private WindowMerger merger;
  private final SloSpec slo;

  Stage2Processor(int partitions, String inputTopic, SloSpec slo) {
    this.partitions = partitions;
    this.inputTopic = inputTopic;
    this.slo = slo;
  }

  @Override
  public void init(ProcessorContext<String, byte[]> context) {
    this.context = context;
    this.merger =
        new WindowMerger(
            partitions,
            state(context, AggregatorTopology.MERGED_STORE),
            state(context, AggregatorTopology.MERGE_PROGRESS_STORE),
            slo);
    merger.open(inputTopic);
  }

  @Override
  public void process(Record<byte[], StageMessage> record) {
    StageMessage m = record.value();
    if (m == null) {
      return;
    }
    Output out = new Output(record.timestamp());
    try {
      switch (m.kind()) {
        case PARTIAL -> merger.partial(m.partition(), WindowSummaryCodec.decode(m.payload()), out);
        case PAUSE -> merger.clientPause(m.partition(), m.windowMs(), m.value());
        case MARKER -> merger.closedThrough(m.partition(), m.windowMs(), out);
        case DEAD_LETTER -> {}
      }
    } catch (KafkaException | PartitionsChangedException e) {
      throw e; // stops the application: the windows can no longer be completed correctly
    } catch (RuntimeException e) {
      LOG.error("skipped an unreadable internal record from partition {}: {}", m.partition(), e);
    }
  }

  @SuppressWarnings("unchecked")
  private static StoreState state(ProcessorContext<?, ?> context, String name) {
    return new StoreState((KeyValueStore<Bytes, byte[]>) context.getStateStore(name));
  }

  private final class Output implements MergeOutput {
    private final long causeTimestamp;

    Output(long causeTimestamp) {
      this.causeTimestamp = causeTimestamp;
    }

    @Override
    public void summary(WindowSummary s, byte[] json) {
      // The window end, unless a record the broker accepted says that would be in its future.
      long timestamp = Math.min(s.windowEndMs(), causeTimestamp);
      context.forward(new Record<>(s.series(), json, timestamp, new RecordHeaders()));
      LOG.info(
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
      LOG.info(
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
