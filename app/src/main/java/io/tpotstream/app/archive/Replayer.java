package io.tpotstream.app.archive;

import io.tpotstream.common.archive.ArchiveReader;
import io.tpotstream.common.archive.ArchivedRecord;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaTopics;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Publishes an archive again (DESIGN.md, "Replay"): in (ts, original partition, original offset)
 * order, keys and record timestamps kept, each distinct heartbeat (producerId, watermark, final)
 * once to every partition of the target. A new target topic gets {@code retention.ms=-1}.
 */
public final class Replayer {
  /** {@code speed}: 0 for as fast as possible, else the factor of real time (1 = as recorded). */
  public record Settings(
      Properties client, Path file, String topic, double speed, int partitionsIfNew) {}

  /** What a replay did. */
  public record Result(long records, long heartbeatsSent, long duplicateHeartbeats, long corrupt) {}

  private final Settings settings;
  private final PrintStream progress;

  public Replayer(Settings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  public Result run() throws IOException, InterruptedException {
    long[] corrupt = {0};
    List<ArchivedRecord> records =
        ArchiveReader.readInReplayOrder(
            settings.file(),
            (line, reason) -> {
              corrupt[0]++;
              progress.printf("replay: %s line %d skipped: %s%n", settings.file(), line, reason);
            });
    int partitions = ensureTopic();
    Properties p = new Properties();
    p.putAll(settings.client());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    long sent = 0;
    long heartbeats = 0;
    long duplicates = 0;
    Set<String> seenHeartbeats = new HashSet<>();
    long firstTs = records.isEmpty() ? 0 : records.get(0).ts();
    long startNs = System.nanoTime();
    AtomicReference<Exception> failure = new AtomicReference<>();
    Callback onFailure =
        (metadata, exception) -> {
          if (exception != null) {
            failure.compareAndSet(null, exception);
          }
        };
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p)) {
      for (ArchivedRecord r : records) {
        pace(r.ts() - firstTs, startNs);
        byte[] value = r.valueBytes();
        if ("heartbeat".equals(r.value().path("type").asText())) {
          String identity =
              r.value().path("producerId").asText()
                  + '|'
                  + r.value().path("watermark").asText()
                  + '|'
                  + r.value().path("final").asBoolean(false);
          if (!seenHeartbeats.add(identity)) {
            duplicates++;
            continue;
          }
          for (int partition = 0; partition < partitions; partition++) {
            producer.send(
                new ProducerRecord<>(settings.topic(), partition, r.timestamp(), r.key(), value));
          }
          heartbeats++;
        } else {
          producer.send(
              new ProducerRecord<>(settings.topic(), null, r.timestamp(), r.key(), value));
        }
        sent++;
      }
      producer.flush();
    }
    if (failure.get() != null) {
      throw new IllegalStateException(
          "Kafka rejected a replayed record ("
              + failure.get().getMessage()
              + "); the replay stopped after "
              + sent
              + " records. A timestamp more than log.message.timestamp.after.max.ms ahead of the"
              + " broker's clock is rejected: check the broker's and the archive's clocks",
          failure.get());
    }
    progress.printf(
        "replay: %,d records published to %s (%d partitions), %,d distinct heartbeats sent to every"
            + " partition, %,d duplicate heartbeats dropped, %,d corrupt lines skipped%n",
        sent, settings.topic(), partitions, heartbeats, duplicates, corrupt[0]);
    return new Result(sent, heartbeats, duplicates, corrupt[0]);
  }

  private void pace(long eventOffsetMs, long startNs) throws InterruptedException {
    if (settings.speed() <= 0) {
      return;
    }
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
    KafkaConnection kafka =
        KafkaConnection.of(settings.client().getProperty("bootstrap.servers"), settings.client());
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      KafkaTopics.Ensured topic =
          KafkaTopics.ensure(
              admin,
              kafka,
              settings.topic(),
              settings.partitionsIfNew(),
              Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"));
      if (topic.created()) {
        progress.printf(
            "replay: created %s with %d partitions and retention.ms=-1 (replayed timestamps are old)%n",
            settings.topic(), topic.partitions());
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
        progress.printf(
            "replay: WARNING %s has retention.ms=%d: replayed events older than %s will be deleted"
                + " soon after they are written; set retention.ms=-1 on it or replay into a new"
                + " topic%n",
            settings.topic(), retentionMs, Duration.ofMillis(retentionMs));
      }
    } catch (ExecutionException | RuntimeException e) {
      progress.printf(
          "replay: could not read the retention of %s: %s%n", settings.topic(), e.getMessage());
    }
  }
}
