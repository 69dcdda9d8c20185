package io.tpotstream.archive;

import io.tpotstream.common.progress.Progress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;

/**
 * Sends stretches of records, in the replay order, on {@link #SENDERS} threads that each own some
 * target partitions (a partition's records keep their order: one thread sends them all). A keyed
 * record goes to the partition Kafka's default partitioner gives its key; a record without a key to
 * the partitions in turn; each distinct heartbeat to every partition, duplicates dropped.
 */
final class ReplaySenders {
  /**
   * @param published Kafka records written (a heartbeat counts once per partition)
   */
  record Sent(long published, long heartbeats, long duplicates) {}

  /** Kafka refused a replayed record: the replay stops, whether or not the file was read whole. */
  static final class Rejected extends IllegalStateException {
    Rejected(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Stretches waiting for each sender: few, so that what is in flight dies in the young generation
   * instead of being promoted (BENCHMARKS.md, B5, "Fewer stretches in flight").
   */
  private static final int QUEUED = 3;

  /** Records a sender counts before it tells the progress line (a paced stretch takes a while). */
  private static final int PROGRESS_STEP = 4_096;

  /**
   * Where each record goes: a partition, or (negative) {@link #EVERY} (a heartbeat) or {@link
   * #SKIP}.
   */
  private static final int EVERY = -1;

  private static final int SKIP = -2;

  /**
   * Records in the replay order, where each goes, and the keys already copied out of the file to
   * find that (null for a heartbeat, whose sender copies its own).
   */
  private record Stretch(List<ArchivedRecord> records, int[] target, byte[][] keys) {}

  private static final Stretch LAST = new Stretch(List.of(), new int[0], new byte[0][]);

  /** Sending threads (each owns some target partitions), measured on 2 cores: see BENCHMARKS B5. */
  private static final int SENDERS = Math.max(1, Integer.getInteger("tpot.replay.senders", 2));

  private final KafkaProducer<byte[], byte[]> producer;
  private final int partitions;
  private final String topic;
  private final double speed;
  private final Progress progress;
  private final List<Thread> threads = new ArrayList<>();
  private final List<BlockingQueue<Stretch>> queues = new ArrayList<>();
  private final long[] published;
  private final AtomicReference<Exception> failure = new AtomicReference<>();
  private final Set<ArchivedRecord.Heartbeat> seenHeartbeats = new HashSet<>();
  private final long paceStartNs = System.nanoTime();
  private volatile long firstTs = Long.MIN_VALUE;
  private long heartbeats;
  private long duplicates;
  private int nextUnkeyed;

  /** Senders to {@code topic} (of {@code partitions}) through {@code producer}. */
  ReplaySenders(
      KafkaProducer<byte[], byte[]> producer,
      int partitions,
      String topic,
      double speed,
      Progress progress) {
    this.producer = producer;
    this.partitions = partitions;
    this.topic = topic;
    this.speed = speed;
    this.progress = progress;
    int senders = Math.max(1, Math.min(partitions, SENDERS));
    published = new long[senders];
    for (int s = 0; s < senders; s++) {
      int sender = s;
      BlockingQueue<Stretch> queue = new ArrayBlockingQueue<>(QUEUED);
      queues.add(queue);
      Thread t =
          new Thread(
              () -> {
                try {
                  published[sender] = sendOwn(queue, sender, senders);
                } catch (InterruptedException | RuntimeException e) {
                  failure.compareAndSet(null, e);
                }
              },
              "replay-send-" + s);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  /** Works out where each record goes and hands the stretch to every sender. */
  void send(List<ArchivedRecord> records) throws InterruptedException {
    throwIfFailed(); // a broker gone fails every later send: stop reading at once
    if (records.isEmpty()) {
      return;
    }
    if (firstTs == Long.MIN_VALUE) {
      firstTs = records.get(0).ts();
    }
    int[] target = new int[records.size()];
    byte[][] keys = new byte[records.size()][];
    for (int i = 0; i < target.length; i++) {
      ArchivedRecord r = records.get(i);
      ArchivedRecord.Heartbeat heartbeat = r.heartbeat();
      // a heartbeat without its identity (a malformed one) goes by its key, as any record
      if (heartbeat != null) {
        if (seenHeartbeats.add(heartbeat)) {
          target[i] = EVERY;
          heartbeats++;
        } else {
          target[i] = SKIP;
          duplicates++;
        }
        continue;
      }
      byte[] key = r.keyBytes();
      keys[i] = key;
      if (key == null) {
        target[i] = nextUnkeyed;
        nextUnkeyed = (nextUnkeyed + 1) % partitions;
      } else {
        target[i] = Utils.toPositive(Utils.murmur2(key)) % partitions;
      }
    }
    Stretch stretch = new Stretch(records, target, keys);
    for (BlockingQueue<Stretch> queue : queues) {
      while (!queue.offer(stretch, 100, TimeUnit.MILLISECONDS)) {
        throwIfFailed(); // the senders stopped
      }
    }
  }

  private void throwIfFailed() {
    Exception failed = failure.get();
    if (failed != null) { // a broker that stopped answering is worded by KafkaOptions.explained
      throw new Rejected(
          "Kafka rejected a replayed record ("
              + failed.getMessage()
              + "); the replay stopped. A timestamp more than"
              + " log.message.timestamp.after.max.ms ahead of the broker's clock is rejected:"
              + " check the broker's and the archive's clocks",
          failed);
    }
  }

  /** Waits for the senders and the producer; throws what made a send fail. */
  Sent finish() throws InterruptedException {
    for (BlockingQueue<Stretch> queue : queues) {
      while (!queue.offer(LAST, 100, TimeUnit.MILLISECONDS)) {
        if (failure.get() != null) {
          break;
        }
      }
    }
    for (Thread t : threads) {
      t.join();
    }
    progress.phase("flushing to " + topic, "records", -1);
    producer.flush();
    throwIfFailed();
    return new Sent(Arrays.stream(published).sum(), heartbeats, duplicates);
  }

  /** {@link #finish()}, then {@link #close(boolean)}: at once after a failure. */
  Sent finishAndClose() throws InterruptedException {
    boolean sentAll = false;
    try {
      Sent sent = finish();
      sentAll = true;
      return sent;
    } finally {
      close(sentAll);
    }
  }

  /**
   * Closes the producer: after {@link #finish()} sent everything, at once; else (the replay failed)
   * the senders stop without sending what is queued, and nothing waits for the broker.
   */
  void close(boolean sentAll) {
    if (sentAll) {
      producer.close();
      return;
    }
    failure.compareAndSet(null, new IllegalStateException("the replay stopped"));
    threads.forEach(Thread::interrupt);
    producer.close(Duration.ZERO);
  }

  /** Sends the records of the partitions {@code sender} owns; returns the Kafka records sent. */
  private long sendOwn(BlockingQueue<Stretch> queue, int sender, int senders)
      throws InterruptedException {
    Callback onFailure =
        (metadata, exception) -> {
          if (exception != null) {
            failure.compareAndSet(null, exception);
          }
        };
    long sent = 0;
    for (Stretch stretch = queue.take(); stretch != LAST; stretch = queue.take()) {
      List<ArchivedRecord> records = stretch.records();
      int[] target = stretch.target();
      // progress counts each archived record once, when it has gone to the producer (not when
      // it was handed over, up to QUEUED stretches before: at --speed 1x, minutes of event time):
      // a record for one partition by its sender, a heartbeat or a dropped duplicate by the first
      int done = 0;
      for (int i = 0; i < target.length; i++) {
        int p = target[i];
        boolean ownPartition = p >= 0 && p % senders == sender;
        if ((ownPartition || (p < 0 && sender == 0)) && ++done == PROGRESS_STEP) {
          progress.add(done);
          done = 0;
        }
        if (!ownPartition && p != EVERY) {
          continue;
        }
        if (failure.get() != null) {
          return sent; // a send failed (a broker gone fails every later one): stop
        }
        ArchivedRecord r = records.get(i);
        if (speed > 0) {
          pace(r.ts() - firstTs, paceStartNs);
        }
        byte[] key = p == EVERY ? r.keyBytes() : stretch.keys()[i];
        byte[] value = r.valueBytes();
        Long timestamp = r.timestamp();
        if (p == EVERY) {
          for (int partition = sender; partition < partitions; partition += senders) {
            producer.send(new ProducerRecord<>(topic, partition, timestamp, key, value), onFailure);
            sent++;
          }
        } else {
          producer.send(new ProducerRecord<>(topic, p, timestamp, key, value), onFailure);
          sent++;
        }
      }
      progress.add(done);
    }
    return sent;
  }

  private void pace(long eventOffsetMs, long startNs) throws InterruptedException {
    long dueNs = startNs + (long) (eventOffsetMs * 1_000_000L / speed);
    long waitNs = dueNs - System.nanoTime();
    if (waitNs > 0) {
      Thread.sleep(waitNs / 1_000_000L, (int) (waitNs % 1_000_000L));
    }
  }
}
