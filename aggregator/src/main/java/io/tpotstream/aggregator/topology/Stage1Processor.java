package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.stage.PartitionStage;
import io.tpotstream.aggregator.stage.Stage1Output;
import io.tpotstream.aggregator.stage.StageSettings;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 1 in Kafka Streams: one instance per input partition runs {@link PartitionStage} over the
 * task's stores. A record that is not a token event goes to the dead letters and processing goes
 * on: a throwing record would fail the task forever under exactly-once.
 */
final class Stage1Processor implements Processor<byte[], byte[], byte[], StageMessage> {
  private static final Logger LOG = LoggerFactory.getLogger(Stage1Processor.class);
  private static final byte[] NO_KEY = new byte[0];

  private final StageSettings settings;
  private final String deadLetterTopic;
  private ProcessorContext<byte[], StageMessage> context;
  private PartitionStage stage;

  Stage1Processor(StageSettings settings, String deadLetterTopic) {
    this.settings = settings;
    this.deadLetterTopic = deadLetterTopic;
  }

  @Override
  public void init(ProcessorContext<byte[], StageMessage> context) {
    this.context = context;
    this.stage =
        new PartitionStage(
            settings,
            state(context, AggregatorTopology.REQUEST_STORE),
            state(context, AggregatorTopology.PARTIAL_STORE),
            state(context, AggregatorTopology.PARTITION_STORE));
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    RecordMetadata source = context.recordMetadata().orElseThrow();
    TokenEvent event;
    try {
      event = TokenEventCodec.decode(record.value());
    } catch (TokenEventFormatException e) {
      deadLetter(record, source, e.getMessage());
      return;
    }
    try {
      stage.onEvent(event, new Forwarder(record, source.partition()));
    } catch (KafkaException e) {
      throw e; // Kafka's own failures (e.g. a task migrated) must reach Kafka Streams
    } catch (RuntimeException e) {
      deadLetter(record, source, "could not process: " + e);
    }
  }

  private void deadLetter(Record<byte[], byte[]> record, RecordMetadata source, String reason) {
    Headers headers = new RecordHeaders(record.headers().toArray());
    headers.add(DeadLetterHeaders.SOURCE_TOPIC, utf8(source.topic()));
    headers.add(DeadLetterHeaders.SOURCE_PARTITION, utf8(Integer.toString(source.partition())));
    headers.add(DeadLetterHeaders.SOURCE_OFFSET, utf8(Long.toString(source.offset())));
    headers.add(DeadLetterHeaders.REASON, utf8(reason));
    context.forward(
        new Record<>(
            record.key(),
            StageMessage.deadLetter(source.partition(), record.value()),
            record.timestamp(),
            headers));
    long total = stage.addToCounter("deadLetters", 1);
    LOG.warn(
        "record {}-{}@{} is not a token event, sent to {} ({} so far on this partition): {}",
        source.topic(),
        source.partition(),
        source.offset(),
        deadLetterTopic,
        total,
        reason);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @SuppressWarnings("unchecked")
  private static StoreState state(ProcessorContext<?, ?> context, String name) {
    return new StoreState(
        (KeyValueStore<org.apache.kafka.common.utils.Bytes, byte[]>) context.getStateStore(name));
  }

  /**
   * Forwards what the stage emits while it handles one record, with that record's timestamp (a
   * timestamp the broker already accepted).
   */
  private final class Forwarder implements Stage1Output {
    private final Record<byte[], byte[]> cause;
    private final int partition;

    Forwarder(Record<byte[], byte[]> cause, int partition) {
      this.cause = cause;
      this.partition = partition;
    }

    @Override
    public void partial(WindowSummary partial) {
      forward(
          partial.series().getBytes(StandardCharsets.UTF_8),
          StageMessage.partial(
              partition, partial.windowStartMs(), WindowSummaryCodec.encode(partial)));
    }

    @Override
    public void clientPause(long windowStartMs, long pauseMaxUs) {
      forward(NO_KEY, StageMessage.pause(partition, windowStartMs, pauseMaxUs));
    }

    @Override
    public void closedThrough(long windowEndMs) {
      forward(NO_KEY, StageMessage.marker(partition, windowEndMs));
      LOG.debug("partition {} closed windows through {}", partition, windowEndMs);
    }

    private void forward(byte[] key, StageMessage message) {
      context.forward(new Record<>(key, message, cause.timestamp(), new RecordHeaders()));
    }
  }
}
