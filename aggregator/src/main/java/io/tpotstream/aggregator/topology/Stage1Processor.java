package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenEventFormatException;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 1 in Kafka Streams: one instance per input partition runs {@link PartitionStage} on its
 * in-memory working set, loaded from the task's store at start and written back to it inside every
 * commit. A record that is not a token event goes to the dead letters and processing goes on: a
 * throwing record would fail the task forever under exactly-once.
 */
final class Stage1Processor implements Processor<byte[], byte[], byte[], StageMessage> {
  private static final Logger LOG = LoggerFactory.getLogger(Stage1Processor.class);
  private static final byte[] NO_KEY = new byte[0];

  private final PartitionStage stage;
  private final String deadLetterTopic;
  private final TokenEventDecoder decoder = new TokenEventDecoder();
  private final Forwarder forwarder = new Forwarder();
  private ProcessorContext<byte[], StageMessage> context;
  private WorkingSetStore store;
  private LiveCommit commit;
  private int partition;

  /** A stage of one input partition; its working set is loaded in init. */
  Stage1Processor(StageSettings settings, String deadLetterTopic) {
    this.stage = new PartitionStage(settings);
    this.deadLetterTopic = deadLetterTopic;
  }

  @Override
  public void init(ProcessorContext<byte[], StageMessage> context) {
    this.context = context;
    this.partition = context.taskId().partition();
    this.store = context.getStateStore(AggregatorTopology.STAGE1_STORE);
    StoreState state = new StoreState(store.inner());
    stage.load(state);
    commit = new LiveCommit(context);
    store.beforeCommit(
        () -> {
          stage.writeChanges(state);
          commit.committed();
        });
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    commit.record();
    DecodedEvent event;
    try {
      event = decoder.decode(record.key(), record.value());
    } catch (TokenEventFormatException e) {
      deadLetter(record, e.getMessage());
      return;
    }
    forwarder.timestamp = record.timestamp();
    try {
      stage.onEvent(event, forwarder);
    } catch (KafkaException e) {
      throw e; // Kafka's own failures (e.g. a task migrated) must reach Kafka Streams
    } catch (RuntimeException e) {
      deadLetter(record, "could not process: " + e);
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

  private void deadLetter(Record<byte[], byte[]> record, String reason) {
    RecordMetadata source = context.recordMetadata().orElseThrow();
    DeadLetter letter =
        DeadLetter.of(record.key(), record.value(), record.headers(), source, reason);
    context.forward(
        new Record<>(
            letter.key(),
            StageMessage.deadLetter(source.partition(), letter.value()),
            record.timestamp(),
            letter.headers()));
    long total = stage.addToCounter("deadLetters", 1);
    LOG.warn(
        "record {}-{}@{} is not a token event, sent to {} ({} so far on this partition): {}",
        source.topic(),
        source.partition(),
        source.offset(),
        deadLetterTopic,
        total,
        letter.reason());
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Forwards what the stage emits while it handles one record, with that record's timestamp (a
   * timestamp the broker already accepted).
   */
  private final class Forwarder implements Stage1Output {
    long timestamp;

    @Override
    public void partial(long windowStartMs, SeriesName series, WindowCounts counts) {
      forward(
          series.series().getBytes(StandardCharsets.UTF_8),
          StageMessage.partial(partition, windowStartMs, series, counts));
    }

    @Override
    public void windowHealth(long windowStartMs, long pauseMaxUs, long lagMaxUs) {
      forward(NO_KEY, StageMessage.health(partition, windowStartMs, pauseMaxUs, lagMaxUs));
    }

    @Override
    public void closedThrough(long windowEndMs) {
      forward(NO_KEY, StageMessage.marker(partition, windowEndMs));
      commit.windowClosed(timestamp);
      LOG.debug("partition {} closed windows through {}", partition, windowEndMs);
    }

    private void forward(byte[] key, StageMessage message) {
      context.forward(new Record<>(key, message, timestamp, new RecordHeaders()));
    }
  }
}
