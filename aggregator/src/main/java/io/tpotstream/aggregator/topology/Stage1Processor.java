package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.PartitionStage;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.aggregator.stage2.SettingsChangedException;
import io.tpotstream.aggregator.stage2.StateSettings;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenEventFormatException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 1 in Kafka Streams: one instance per input partition runs {@link PartitionStage} on its
 * in-memory working set, loaded from the task's store at start and written back to it inside every
 * commit. A record that is not a token event, or whose times run ahead of its broker timestamp,
 * goes to the dead letters and processing goes on: a throwing record would fail the task forever
 * under exactly-once. While anything may still close, a wall-clock tick every {@link #TICK} moves
 * the partition's clock on when no record comes (a producer killed, the last one gone).
 */
final class Stage1Processor implements Processor<byte[], byte[], byte[], StageMessage> {
  private static final Logger LOG = LoggerFactory.getLogger(Stage1Processor.class);
  private static final byte[] NO_KEY = new byte[0];

  /** How often the wall clock is looked at while something may still close. */
  static final Duration TICK = Duration.ofSeconds(1);

  private final PartitionStage stage;
  private final String deadLetterTopic;
  private final TokenEventDecoder decoder = new TokenEventDecoder();
  private final Forwarder forwarder = new Forwarder();
  private ProcessorContext<byte[], StageMessage> context;
  private WorkingSetStore store;
  private LiveCommit commit;
  private Cancellable ticking;
  private int partition;
  private final String settings;
  private final ReadConfirmation reads;

  /** At most one dead-letter line per partition this often; the topic holds every one. */
  static final long LOG_EVERY_MS = 1_000;

  private long loggedAtMs = Long.MIN_VALUE / 2;
  private long nextOffset = -1; // after the last record processed
  private long unlogged;

  /**
   * A stage of one input partition; its working set is loaded in init.
   *
   * @param closeOnFinal the input is one run's (no producer can join): the last window closes when
   *     every producer is final
   * @param reads whether a silent partition has really read everything (only then does the wall
   *     clock move its clock)
   */
  Stage1Processor(
      StageSettings settings,
      String deadLetterTopic,
      boolean closeOnFinal,
      ReadConfirmation reads) {
    this.stage = new PartitionStage(settings, true, closeOnFinal);
    this.deadLetterTopic = deadLetterTopic;
    this.settings = StateSettings.of(settings);
    this.reads = reads;
  }

  @Override
  public void init(ProcessorContext<byte[], StageMessage> context) {
    this.context = context;
    this.partition = context.taskId().partition();
    this.store = context.getStateStore(AggregatorTopology.STAGE1_STORE);
    StoreState state = new StoreState(store.inner());
    // stage 1's windows have the settings' size too: checked before any record is read
    byte[] stored = state.get(PartitionStage.SETTINGS);
    if (stored != null && !StateSettings.compatible(utf8(stored), settings)) {
      throw SettingsChangedException.between(utf8(stored), settings);
    }
    stage.load(state);
    commit = new LiveCommit(context);
    store.beforeCommit(
        () -> {
          if (state.get(PartitionStage.SETTINGS) == null) {
            state.put(PartitionStage.SETTINGS, settings.getBytes(StandardCharsets.UTF_8));
          }
          stage.writeChanges(state);
          commit.committed();
        });
    keepTicking();
  }

  @Override
  public void process(Record<byte[], byte[]> record) {
    commit.record();
    RecordMetadata read = context.recordMetadata().orElse(null);
    if (read != null) {
      nextOffset = read.offset() + 1;
    }
    DecodedEvent event;
    try {
      event = decoder.decode(record.key(), record.value());
    } catch (TokenEventFormatException e) {
      deadLetter(record, e.getMessage());
      return;
    }
    String distrust = stage.distrust(event, record.timestamp());
    if (distrust != null) {
      deadLetter(record, "not trusted: " + distrust);
      return;
    }
    forwarder.timestamp = record.timestamp();
    try {
      stage.onEvent(event, record.timestamp(), context.currentSystemTimeMs(), forwarder);
    } catch (KafkaException e) {
      throw e; // Kafka's own failures (e.g. a task migrated) must reach Kafka Streams
    } catch (RuntimeException e) {
      deadLetter(record, "could not process: " + e);
    }
    keepTicking();
  }

  /** Ticks while something may still close or be pruned; an idle partition costs nothing. */
  private void keepTicking() {
    if (ticking == null && stage.hasPending()) {
      ticking = context.schedule(TICK, PunctuationType.WALL_CLOCK_TIME, this::tick);
    }
  }

  private void tick(long wallNowMs) {
    // what closes now is stamped with the partition's clock: a time the broker's records reached
    forwarder.timestamp = Math.max(0, stage.clockMs());
    stage.tick(wallNowMs, reads.confirmedAtMs(partition, nextOffset), forwarder);
    if (!stage.hasPending()) {
      ticking.cancel();
      ticking = null;
    }
  }

  @Override
  public void close() {
    if (ticking != null) {
      ticking.cancel();
      ticking = null;
    }
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
    long now = context.currentSystemTimeMs();
    if (now - loggedAtMs >= LOG_EVERY_MS) {
      loggedAtMs = now;
      LOG.warn(
          "record {}-{}@{} is not a token event, sent to {} ({} so far on this partition{}): {}",
          source.topic(),
          source.partition(),
          source.offset(),
          deadLetterTopic,
          total,
          unlogged == 0 ? "" : ", " + unlogged + " more since the last line",
          letter.reason());
      unlogged = 0;
    } else {
      unlogged++; // a flood of bad records is one line a second, not one line each
    }
  }

  private static String utf8(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
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
