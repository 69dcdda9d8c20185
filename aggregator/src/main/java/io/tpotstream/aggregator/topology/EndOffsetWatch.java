package io.tpotstream.aggregator.topology;

import io.tpotstream.common.kafka.KafkaTopics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ReadConfirmation} from the broker itself: a daemon thread asks every {@link #PERIOD} for
 * the input partitions' last stable offsets and the application's committed offsets, and keeps the
 * answer with the time it was asked. An unanswered question (broker down, network cut, this host
 * paused) leaves the last answer where it was, and the stages count silence only between answers
 * close together. Two admin calls a second per aggregator instance, off the stream threads.
 */
public final class EndOffsetWatch implements ReadConfirmation, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EndOffsetWatch.class);

  /** How often the end offsets are asked for. */
  static final Duration PERIOD = Duration.ofSeconds(1);

  private final Admin admin;
  private final String topic;
  private final String groupId;
  private final AtomicLongArray ends;
  private final AtomicLongArray committed;
  private final AtomicLongArray answeredAtMs;
  private final Thread thread;
  private volatile boolean running = true;

  /**
   * Starts watching {@code partitions} partitions of {@code topic}, read by group {@code groupId},
   * with {@code admin} (closed with this watch).
   */
  public EndOffsetWatch(Admin admin, String topic, int partitions, String groupId) {
    this.admin = admin;
    this.topic = topic;
    this.groupId = groupId;
    this.ends = new AtomicLongArray(partitions);
    this.committed = new AtomicLongArray(partitions);
    this.answeredAtMs = new AtomicLongArray(partitions);
    for (int p = 0; p < partitions; p++) {
      answeredAtMs.set(p, Long.MIN_VALUE);
    }
    this.thread = new Thread(this::run, "tpot-end-offset-watch");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public long confirmedAtMs(int partition, long nextOffset) {
    if (partition < 0 || partition >= ends.length()) {
      return Long.MIN_VALUE;
    }
    long at = answeredAtMs.get(partition);
    long read = Math.max(committed.get(partition), nextOffset);
    return at != Long.MIN_VALUE && ends.get(partition) <= read + 1 ? at : Long.MIN_VALUE;
  }

  private void run() {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    KafkaTopics.partitionsOf(topic, ends.length())
        .forEach(tp -> latest.put(tp, OffsetSpec.latest()));
    ListOffsetsOptions options =
        new ListOffsetsOptions(IsolationLevel.READ_COMMITTED).timeoutMs((int) PERIOD.toMillis());
    boolean failing = false;
    while (running) {
      long askedAt = System.currentTimeMillis();
      try {
        Map<TopicPartition, OffsetAndMetadata> done =
            admin
                .listConsumerGroupOffsets(groupId)
                .partitionsToOffsetAndMetadata()
                .get(2 * PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        Map<TopicPartition, ListOffsetsResultInfo> answer =
            admin
                .listOffsets(latest, options)
                .all()
                .get(2 * PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        answer.forEach(
            (tp, info) -> {
              OffsetAndMetadata at = done.get(tp);
              // nothing committed: an empty partition is caught up, any other is not
              committed.set(tp.partition(), at == null ? -1 : at.offset());
              ends.set(tp.partition(), info.offset());
              answeredAtMs.set(tp.partition(), askedAt);
            });
        if (failing) {
          LOG.info("the broker answers again for {}: idle partitions' clocks move on", topic);
          failing = false;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        if (!failing && running) {
          LOG.warn(
              "cannot read the end offsets of {} ({}): windows wait, since silence is not"
                  + " evidence while the broker does not answer",
              topic,
              e.getCause() != null ? e.getCause() : e);
          failing = true;
        }
      }
      long rest = PERIOD.toMillis() - (System.currentTimeMillis() - askedAt);
      if (rest > 0) {
        try {
          Thread.sleep(rest);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
    admin.close(Duration.ofSeconds(5));
  }
}
