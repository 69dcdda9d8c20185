package io.tpotstream.app.archive;

import io.tpotstream.common.archive.ArchiveReader;
import io.tpotstream.common.archive.ArchivedRecord;
import io.tpotstream.common.progress.Progress;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes an archive again (DESIGN.md, "Replay"): in (ts, original partition, original offset)
 * order, keys and record timestamps kept, each distinct heartbeat (producerId, watermark, final)
 * once to every partition of the target. A new target topic gets {@code retention.ms=-1}.
 *
 * <p>The archive is read and sorted first ({@link ArchiveReader}, which parses only what the order
 * needs); then one thread hands the records, as the file's bytes, to a producer set for bulk: large
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
      Properties client,
      Path file,
      String topic,
      double speed,
      int partitionsIfNew,
      Long fromMs,
      Long toMs) {
    public Settings(Properties client, Path file, String topic, double speed, int partitionsIfNew) {
      this(client, file, topic, speed, partitionsIfNew, null, null);
    }
  }

  /** What a replay did. */
  public record Result(long records, long heartbeatsSent, long duplicateHeartbeats, long corrupt) {}

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
    // the topic and the producer get ready while the archive is read
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
      ArchiveReader.Archive archive =
          ArchiveReader.read(
              settings.file(),
              new ArchiveReader.Options(
                  settings.fromMs(),
                  settings.toMs(),
                  (line, reason) ->
                      progress.warn(
                          "replay: " + settings.file() + " line " + line + " skipped: " + reason),
                  progress));
      Sent sent;
      int partitions;
      try (KafkaProducer<byte[], byte[]> producer = await(target).producer()) {
        partitions = await(target).partitions();
        sent = send(archive.records(), producer, partitions);
      }
      double seconds = (System.nanoTime() - startNs) / 1e9;
      progress.finish(
          String.format(
              Locale.ROOT,
              "replay: %,d records published to %s (%d partitions) in %.1f s (%,.0f records/s):"
                  + " %,d archived records, %,d distinct heartbeats sent to every partition, %,d"
                  + " duplicate heartbeats dropped, %,d corrupt lines skipped%s",
              sent.published(),
              settings.topic(),
              partitions,
              seconds,
              sent.published() / Math.max(seconds, 1e-3),
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

  /** The target topic's partition count and a producer connected to it. */
  private record Target(KafkaProducer<byte[], byte[]> producer, int partitions) {}

  private Target openTarget() throws InterruptedException {
    int partitions = ensureTopic();
    KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(producerProperties(settings.client()));
    try {
      producer.partitionsFor(settings.topic()); // metadata fetched before the first send
    } catch (RuntimeException e) {
      producer.close(Duration.ZERO);
      throw e;
    }
    return new Target(producer, partitions);
  }

  private static Target await(CompletableFuture<Target> target) throws InterruptedException {
    try {
      return target.get();
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

  private Sent send(
      List<ArchivedRecord> records, KafkaProducer<byte[], byte[]> producer, int partitions)
      throws InterruptedException {
    progress.phase("sending to " + settings.topic(), "records", records.size());
    long done = 0;
    long published = 0;
    long heartbeats = 0;
    long duplicates = 0;
    Set<ArchivedRecord.Heartbeat> seenHeartbeats = new HashSet<>();
    long firstTs = records.isEmpty() ? 0 : records.get(0).ts();
    long paceStartNs = System.nanoTime();
    AtomicReference<Exception> failure = new AtomicReference<>();
    Callback onFailure =
        (metadata, exception) -> {
          if (exception != null) {
            failure.compareAndSet(null, exception);
          }
        };
    String topic = settings.topic();
    for (ArchivedRecord r : records) {
      if (settings.speed() > 0) {
        pace(r.ts() - firstTs, paceStartNs);
      }
      if ((done++ & 4095) == 0) {
        progress.set(done);
        if (failure.get() != null) {
          break;
        }
      }
      ArchivedRecord.Heartbeat heartbeat = r.heartbeat();
      if (heartbeat != null && !seenHeartbeats.add(heartbeat)) {
        duplicates++;
        continue;
      }
      byte[] key = r.keyBytes();
      byte[] value = r.valueBytes();
      Long timestamp = r.timestamp();
      if (heartbeat != null) {
        for (int partition = 0; partition < partitions; partition++) {
          producer.send(new ProducerRecord<>(topic, partition, timestamp, key, value), onFailure);
        }
        heartbeats++;
        published += partitions;
      } else {
        producer.send(new ProducerRecord<>(topic, null, timestamp, key, value), onFailure);
        published++;
      }
    }
    progress.set(done);
    progress.phase("flushing to " + topic, "records", -1);
    producer.flush();
    if (failure.get() != null) {
      throw new IllegalStateException(
          "Kafka rejected a replayed record ("
              + failure.get().getMessage()
              + "); the replay stopped after "
              + done
              + " of "
              + records.size()
              + " records. A timestamp more than log.message.timestamp.after.max.ms ahead of the"
              + " broker's clock is rejected: check the broker's and the archive's clocks",
          failure.get());
    }
    return new Sent(published, heartbeats, duplicates);
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
    try (Admin admin = Admin.create(settings.client())) {
      try {
        admin
            .createTopics(
                List.of(
                    new NewTopic(settings.topic(), settings.partitionsIfNew(), (short) -1)
                        .configs(Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"))))
            .all()
            .get();
        progress.println(
            String.format(
                Locale.ROOT,
                "replay: created %s with %d partitions and retention.ms=-1 (replayed timestamps"
                    + " are old)",
                settings.topic(),
                settings.partitionsIfNew()));
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new IllegalStateException("cannot create topic " + settings.topic(), e.getCause());
        }
        warnOnRetention(admin);
      }
      try {
        return admin
            .describeTopics(List.of(settings.topic()))
            .allTopicNames()
            .get()
            .get(settings.topic())
            .partitions()
            .size();
      } catch (ExecutionException e) {
        throw new IllegalStateException("cannot describe topic " + settings.topic(), e.getCause());
      }
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
