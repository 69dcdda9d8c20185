package io.tpotstream.app.archive;

import io.tpotstream.common.archive.ArchiveReader;
import io.tpotstream.common.archive.ArchivedRecord;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaPreflight;
import io.tpotstream.common.kafka.KafkaTopics;
import io.tpotstream.common.progress.Progress;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;

/**
 * Publishes an archive again (docs/design.md, "Replay"): in (ts, original partition, original
 * offset) order, keys and record timestamps kept, each distinct heartbeat (producerId, watermark,
 * final) once to every partition of the target. A new target topic gets {@code retention.ms=-1}.
 *
 * <p>The archive is read and sorted first ({@link ArchiveReader}, which parses only what the order
 * needs) while another thread checks the connection ({@link KafkaPreflight}: it costs a second of
 * class loading and round trips, a fifth of a two-million-event replay), creates the topic and
 * connects the producer; a failure there stops the reading at once. Then two threads, each owning
 * some target partitions, hand the records, as the file's bytes, to a producer set for bulk: large
 * lz4 batches, a long linger, several requests in flight. Order within each target partition is the
 * send order (idempotence keeps it across retries).
 */
public final class Replayer {
  /**
   * What to replay.
   *
   * @param speed 0 for as fast as the broker takes it, else the factor of real time (1 = as
   *     recorded)
   * @param fromMs only records with a timestamp at or after this (epoch ms), or null
   * @param toMs only records with a timestamp before this, or null
   */
  public record Settings(
      KafkaConnection kafka,
      Path file,
      String topic,
      double speed,
      int partitionsIfNew,
      Long fromMs,
      Long toMs) {
    /** The whole archive, with plain client properties ({@code bootstrap.servers} among them). */
    public Settings(Properties client, Path file, String topic, double speed, int partitionsIfNew) {
      this(
          KafkaConnection.of(client.getProperty("bootstrap.servers"), client),
          file,
          topic,
          speed,
          partitionsIfNew,
          null,
          null);
    }
  }

  /** What a replay did. */
  public record Result(long records, long heartbeatsSent, long duplicateHeartbeats, long corrupt) {}

  /** Sending threads (each owns some target partitions), measured on 2 cores: see BENCHMARKS B5. */
  private static final int SENDERS = Math.max(1, Integer.getInteger("tpot.replay.senders", 2));

  private final Settings settings;
  private final Progress progress;

  public Replayer(Settings settings, Progress progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** The producer settings for publishing an archive in bulk. */
  static Properties producerProperties(Properties client) {
    Properties p = new Properties();
    // bulk: batches fill before the linger ends; lz4 is the cheapest codec per byte saved
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(512 << 10));
    p.put(ProducerConfig.LINGER_MS_CONFIG, "50");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L << 20));
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 << 20));
    p.put(ProducerConfig.SEND_BUFFER_CONFIG, Integer.toString(1 << 20));
    p.putAll(client); // the user's properties win over the bulk defaults
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    return p;
  }

  public Result run() throws IOException, InterruptedException {
    long startNs = System.nanoTime();
    // the connection check, the topic and the producer get ready while the archive is read; a
    // failure there (no broker, a wrong password, a missing ACL) stops the reading at once
    CompletableFuture<Target> target = new CompletableFuture<>();
    Thread setup =
        new Thread(
            () -> {
              try {
                target.complete(openTarget());
              } catch (Throwable e) {
                target.completeExceptionally(e);
              }
            },
            "replay-setup");
    setup.setDaemon(true);
    setup.start();
    try {
      ArchiveReader.Archive archive = read(target);
      long readNs = System.nanoTime();
      Sent sent;
      int partitions;
      long sentNs;
      try (KafkaProducer<byte[], byte[]> producer = await(target).producer()) {
        partitions = await(target).partitions();
        sent = send(archive.records(), producer, partitions);
        sentNs = System.nanoTime();
      }
      double seconds = (System.nanoTime() - startNs) / 1e9;
      progress.finish(
          String.format(
              Locale.ROOT,
              "replay: %,d records published to %s (%d partitions) in %.1f s (%,.0f records/s;"
                  + " read and sorted in %.1f s, sent in %.1f s): %,d archived records, %,d"
                  + " distinct heartbeats sent to every partition, %,d duplicate heartbeats"
                  + " dropped, %,d corrupt lines skipped%s",
              sent.published(),
              settings.topic(),
              partitions,
              seconds,
              sent.published() / Math.max(seconds, 1e-3),
              (readNs - startNs) / 1e9,
              (sentNs - readNs) / 1e9,
              archive.records().size(),
              sent.heartbeats(),
              sent.duplicates(),
              archive.corrupt(),
              archive.outsideRange() > 0
                  ? String.format(Locale.ROOT, ", %,d outside --from/--to", archive.outsideRange())
                  : ""));
      return new Result(sent.published(), sent.heartbeats(), sent.duplicates(), archive.corrupt());
    } finally {
      target.thenAccept(t -> t.producer().close(Duration.ZERO));
      progress.close();
    }
  }

  /**
   * The archive in replay order. A failure of {@code target} while the file is read interrupts the
   * reading and is thrown instead; the interrupt never outlives the reading (a failure after it, or
   * after the reading failed on its own, interrupts nothing).
   */
  private ArchiveReader.Archive read(CompletableFuture<Target> target) throws IOException {
    Thread reader = Thread.currentThread();
    Object lock = new Object();
    boolean[] reading = {true};
    target.whenComplete(
        (ready, failed) -> {
          synchronized (lock) {
            if (failed != null && reading[0]) {
              reader.interrupt();
            }
          }
        });
    try {
      return ArchiveReader.read(
          settings.file(),
          new ArchiveReader.Options(
              settings.fromMs(),
              settings.toMs(),
              (line, reason) ->
                  progress.warn(
                      "replay: " + settings.file() + " line " + line + " skipped: " + reason),
              progress));
    } catch (InterruptedIOException e) {
      if (target.isCompletedExceptionally()) {
        Thread.interrupted(); // the interrupt was the setup's failure, thrown here instead
        await(target);
      }
      throw e;
    } finally {
      synchronized (lock) {
        reading[0] = false;
      }
      if (target.isCompletedExceptionally()) {
        Thread.interrupted(); // it came after the reading's last check (the sort): run() throws it
      }
    }
  }

  /** The target topic's partition count and a producer connected to it. */
  private record Target(KafkaProducer<byte[], byte[]> producer, int partitions) {}

  private Target openTarget() throws InterruptedException {
    KafkaPreflight.check(settings.kafka());
    int partitions = ensureTopic();
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerProperties(settings.kafka().clientProperties()));
    try {
      producer.partitionsFor(settings.topic()); // metadata fetched before the first send
    } catch (RuntimeException e) {
      producer.close(Duration.ZERO);
      throw e;
    }
    return new Target(producer, partitions);
  }

  private static Target await(CompletableFuture<Target> target) {
    try {
      return target.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while connecting to Kafka", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
    }
  }

  /**
   * @param published Kafka records written (a heartbeat counts once per partition)
   */
  private record Sent(long published, long heartbeats, long duplicates) {}

  /** Where each record goes: a partition, {@link #EVERY} (a heartbeat) or {@link #SKIP}. */
  private static final int EVERY = -1;

  private static final int SKIP = -2;

  /** While the targets are worked out: a heartbeat or a record without a key. */
  private static final int UNKEYED = -3;

  /**
   * Sends every record, in the replay order, on {@code senders} threads that each own some target
   * partitions (a partition's records keep their order: one thread sends them all). A keyed record
   * goes to the partition Kafka's default partitioner gives its key; a record without a key to the
   * partitions in turn; each distinct heartbeat to every partition, duplicates dropped.
   */
  private Sent send(
      List<ArchivedRecord> records, KafkaProducer<byte[], byte[]> producer, int partitions)
      throws InterruptedException {
    int n = records.size();
    int[] target = new int[n];
    // the keys' partitions on every core; heartbeats and keyless records in order after
    IntStream.range(0, n)
        .parallel()
        .forEach(
            i -> {
              ArchivedRecord r = records.get(i);
              // a heartbeat without its identity (a malformed one) goes by its key, as any record
              byte[] key = r.heartbeat() != null ? null : r.keyBytes();
              target[i] = key == null ? UNKEYED : Utils.toPositive(Utils.murmur2(key)) % partitions;
            });
    Set<ArchivedRecord.Heartbeat> seenHeartbeats = new HashSet<>();
    long heartbeats = 0;
    long duplicates = 0;
    int nextUnkeyed = 0;
    for (int i = 0; i < n; i++) {
      if (target[i] != UNKEYED) {
        continue;
      }
      ArchivedRecord.Heartbeat heartbeat = records.get(i).heartbeat();
      if (heartbeat == null) {
        target[i] = nextUnkeyed++ % partitions;
      } else if (seenHeartbeats.add(heartbeat)) {
        target[i] = EVERY;
        heartbeats++;
      } else {
        target[i] = SKIP;
        duplicates++;
      }
    }
    progress.phase("sending to " + settings.topic(), "records", n - duplicates);
    int senders = Math.max(1, Math.min(partitions, SENDERS));
    AtomicReference<Exception> failure = new AtomicReference<>();
    long paceStartNs = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    long[] published = new long[senders];
    for (int s = 0; s < senders; s++) {
      int sender = s;
      Thread t =
          new Thread(
              () -> {
                try {
                  published[sender] =
                      sendOwn(
                          records,
                          target,
                          producer,
                          partitions,
                          sender,
                          senders,
                          failure,
                          paceStartNs);
                } catch (InterruptedException | RuntimeException e) {
                  failure.compareAndSet(null, e);
                }
              },
              "replay-send-" + s);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    progress.phase("flushing to " + settings.topic(), "records", -1);
    producer.flush();
    Exception failed = failure.get();
    if (failed != null) { // a broker that stopped answering is worded by KafkaOptions.explained
      throw new IllegalStateException(
          "Kafka rejected a replayed record ("
              + failed.getMessage()
              + "); the replay stopped. A timestamp more than log.message.timestamp.after.max.ms"
              + " ahead of the broker's clock is rejected: check the broker's and the archive's"
              + " clocks",
          failed);
    }
    return new Sent(Arrays.stream(published).sum(), heartbeats, duplicates);
  }

  /** Sends the records of the partitions {@code sender} owns; returns the Kafka records sent. */
  private long sendOwn(
      List<ArchivedRecord> records,
      int[] target,
      KafkaProducer<byte[], byte[]> producer,
      int partitions,
      int sender,
      int senders,
      AtomicReference<Exception> failure,
      long paceStartNs)
      throws InterruptedException {
    Callback onFailure =
        (metadata, exception) -> {
          if (exception != null) {
            failure.compareAndSet(null, exception);
          }
        };
    String topic = settings.topic();
    long firstTs = records.isEmpty() ? 0 : records.get(0).ts();
    long sent = 0;
    long counted = 0;
    for (int i = 0; i < target.length; i++) {
      int p = target[i];
      if (p == SKIP || (p != EVERY && p % senders != sender)) {
        continue;
      }
      if (failure.get() != null) {
        break; // a send failed (a broker gone fails every later one after max.block.ms): stop
      }
      ArchivedRecord r = records.get(i);
      if (settings.speed() > 0) {
        pace(r.ts() - firstTs, paceStartNs);
      }
      byte[] key = r.keyBytes();
      byte[] value = r.valueBytes();
      Long timestamp = r.timestamp();
      if (p == EVERY) {
        for (int partition = sender; partition < partitions; partition += senders) {
          producer.send(new ProducerRecord<>(topic, partition, timestamp, key, value), onFailure);
          sent++;
        }
        if (sender != 0) {
          continue; // the first sender counts a heartbeat
        }
      } else {
        producer.send(new ProducerRecord<>(topic, p, timestamp, key, value), onFailure);
        sent++;
      }
      if ((++counted & 4095) == 0) {
        progress.add(4096);
      }
    }
    progress.add(counted & 4095);
    return sent;
  }

  private void pace(long eventOffsetMs, long startNs) throws InterruptedException {
    long dueNs = startNs + (long) (eventOffsetMs * 1_000_000L / settings.speed());
    long waitNs = dueNs - System.nanoTime();
    if (waitNs > 0) {
      Thread.sleep(waitNs / 1_000_000L, (int) (waitNs % 1_000_000L));
    }
  }

  /**
   * Creates the topic with infinite retention when new; warns when an existing one would delete.
   */
  private int ensureTopic() throws InterruptedException {
    KafkaConnection kafka = settings.kafka();
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      KafkaTopics.Ensured topic =
          KafkaTopics.ensure(
              admin,
              kafka,
              settings.topic(),
              settings.partitionsIfNew(),
              Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"));
      if (topic.created()) {
        progress.println(
            String.format(
                Locale.ROOT,
                "replay: created %s with %d partitions and retention.ms=-1 (replayed timestamps"
                    + " are old)",
                settings.topic(),
                topic.partitions()));
      } else {
        warnOnRetention(admin);
      }
      return topic.partitions();
    }
  }

  private void warnOnRetention(Admin admin) throws InterruptedException {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, settings.topic());
    try {
      Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
      long retentionMs = Long.parseLong(config.get(TopicConfig.RETENTION_MS_CONFIG).value());
      if (retentionMs >= 0) {
        progress.warn(
            String.format(
                Locale.ROOT,
                "replay: WARNING %s has retention.ms=%d: replayed events older than %s will be"
                    + " deleted soon after they are written; set retention.ms=-1 on it or replay"
                    + " into a new topic",
                settings.topic(),
                retentionMs,
                Duration.ofMillis(retentionMs)));
      }
    } catch (ExecutionException | RuntimeException e) {
      progress.warn(
          "replay: could not read the retention of " + settings.topic() + ": " + e.getMessage());
    }
  }
}
