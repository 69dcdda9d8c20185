package io.tpotstream.app;

import io.tpotstream.common.kafka.KafkaAccessException;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaGroups;
import io.tpotstream.common.kafka.KafkaTopics;
import io.tpotstream.common.progress.Progress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What {@code tpot aggregate} shows while it reads a backlog: the input's offsets from where the
 * aggregator's group starts (its committed offsets, or the log start for a new application id) to
 * the end offsets at start, against the offsets the group has committed since, polled every 250 ms
 * ({@link Progress}: records, percent, rate, ETA); one line once every partition's commit has
 * reached its end offset, then nothing more (new events are the aggregator's normal work). It reads
 * offsets with its own small admin client and never touches the aggregator's per-record path. A
 * backlog counts offsets: the tpot producers and replay do not write transactions, so an offset is
 * a record.
 */
public final class CatchUp implements AutoCloseable {
  public static final Duration EVERY = Duration.ofMillis(250);

  private final Admin admin;
  private final String topic;
  private final String group;
  private final Progress progress;
  private final KafkaConnection kafka;
  private final Map<TopicPartition, Long> from;
  private final Map<TopicPartition, Long> to;
  private final long total;
  private final BooleanSupplier ready;
  private final Thread thread;

  private CatchUp(
      Admin admin,
      String topic,
      String group,
      Progress progress,
      KafkaConnection kafka,
      Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> to,
      BooleanSupplier ready) {
    this.admin = admin;
    this.ready = ready;
    this.topic = topic;
    this.group = group;
    this.progress = progress;
    this.kafka = kafka;
    this.from = from;
    this.to = to;
    long sum = 0;
    for (Map.Entry<TopicPartition, Long> end : to.entrySet()) {
      sum += Math.max(0, end.getValue() - from.get(end.getKey()));
    }
    this.total = sum;
    this.thread = new Thread(this::follow, "aggregate-catch-up");
    thread.setDaemon(true);
  }

  /**
   * Reads the backlog of {@code topic} for the group {@code group} (the aggregator's application
   * id) and shows its reading on {@code progress} until it is caught up. With no backlog it says
   * nothing. When the offsets cannot be read it says so once (the aggregator runs on regardless).
   * The line is drawn once {@code ready} (the aggregator runs: its own "running" line, logged on
   * the same stderr, would otherwise land in the middle of a live line).
   */
  public static CatchUp start(
      KafkaConnection kafka, String topic, String group, Progress progress, BooleanSupplier ready) {
    Admin admin = Admin.create(kafka.adminProperties());
    CatchUp catchUp;
    try {
      catchUp = read(admin, kafka, topic, group, progress, ready);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      admin.close(Duration.ZERO);
      progress.warn(
          "aggregate: cannot show the catching-up progress ("
              + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage())
              + "); the aggregator runs on");
      progress.close();
      return null;
    } catch (InterruptedException e) {
      admin.close(Duration.ZERO);
      progress.close();
      Thread.currentThread().interrupt();
      return null;
    }
    if (catchUp.total == 0) {
      admin.close(Duration.ZERO);
      progress.close();
      return catchUp;
    }
    catchUp.thread.start();
    return catchUp;
  }

  private static CatchUp read(
      Admin admin,
      KafkaConnection kafka,
      String topic,
      String group,
      Progress progress,
      BooleanSupplier ready)
      throws ExecutionException, TimeoutException, InterruptedException {
    int count = KafkaTopics.partitions(admin, kafka, topic).orElse(0);
    List<TopicPartition> partitions = KafkaTopics.partitionsOf(topic, count);
    Duration timeout = kafka.timeout();
    Map<TopicPartition, Long> earliest =
        KafkaTopics.offsets(admin, partitions, OffsetSpec.earliest(), timeout);
    // the aggregator reads committed events only: its end is the last stable offset
    Map<TopicPartition, Long> end =
        KafkaTopics.offsets(admin, partitions, OffsetSpec.latest(), timeout);
    Map<TopicPartition, OffsetAndMetadata> committed =
        KafkaGroups.committedOffsets(admin, kafka, group, topic);
    Map<TopicPartition, Long> from = new HashMap<>();
    for (TopicPartition p : partitions) {
      OffsetAndMetadata c = committed.get(p);
      from.put(p, Math.max(earliest.get(p), c == null ? 0 : c.offset()));
    }
    return new CatchUp(admin, topic, group, progress, kafka, from, end, ready);
  }

  /** Offsets of the backlog: from the group's start to the end offsets at start, summed. */
  public long total() {
    return total;
  }

  /** True once it has said it caught up (or had nothing to say). */
  public boolean finished() {
    return total == 0 || thread.getState() == Thread.State.TERMINATED;
  }

  private void follow() {
    try {
      while (!ready.getAsBoolean()) {
        Thread.sleep(EVERY.toMillis());
      }
      progress.phase("catching up on " + topic, "records", total);
      while (true) {
        Map<TopicPartition, OffsetAndMetadata> committed;
        try {
          committed = KafkaGroups.committedOffsets(admin, kafka, group, topic);
        } catch (KafkaAccessException e) {
          // a broker restarting: the line waits; the aggregator is not ours to judge here
          Thread.sleep(EVERY.toMillis());
          continue;
        }
        long done = 0;
        boolean caughtUp = true;
        for (Map.Entry<TopicPartition, Long> end : to.entrySet()) {
          TopicPartition p = end.getKey();
          OffsetAndMetadata c = committed.get(p);
          long at = Math.max(from.get(p), c == null ? 0 : c.offset());
          done += Math.min(at, end.getValue()) - from.get(p);
          caughtUp &= at >= end.getValue();
        }
        progress.set(done);
        if (caughtUp) {
          double seconds = progress.phaseElapsed().toNanos() / 1e9;
          progress.finish(
              String.format(
                  Locale.ROOT,
                  "aggregate: caught up on %s: %,d records read in %.1f s (%,.0f records/s);"
                      + " following new events",
                  topic,
                  total,
                  seconds,
                  seconds > 0 ? total / seconds : 0));
          return;
        }
        Thread.sleep(EVERY.toMillis());
      }
    } catch (InterruptedException e) {
      progress.close();
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  /**
   * Stops following (the aggregator stops, or failed); says nothing more, and the live line is gone
   * when this returns, so what is printed next starts on a line of its own.
   */
  @Override
  public void close() {
    if (total > 0) {
      thread.interrupt();
      try {
        thread.join(1_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
