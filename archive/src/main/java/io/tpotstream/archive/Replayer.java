package io.tpotstream.archive;

import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaPreflight;
import io.tpotstream.common.kafka.KafkaTopics;
import io.tpotstream.common.progress.Progress;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes an archive again (docs/design.md, "Replay"): in (ts, original partition, original
 * offset) order, keys and record timestamps kept, each distinct heartbeat (producerId, watermark,
 * final) once to every partition of the target. A new target topic gets {@code retention.ms=-1}.
 *
 * <p>An export whose lines are in the replay order, as its {@link ArchiveManifest} says, is sent
 * while it is read ({@link ArchiveReader#stream}): a stretch of the file at a time, each record
 * checked to follow the one before it; only a few stretches are held. Any other archive is read
 * whole and sorted first ({@link ArchiveReader#read}, which parses only what the order needs). In
 * both, another thread checks the connection ({@link KafkaPreflight}: it costs a second of class
 * loading and round trips), creates the topic and connects the producer while the file is read; a
 * failure there stops the reading at once. Two threads, each owning some target partitions, hand
 * the records, as the file's bytes, to a producer set for bulk: large lz4 batches, a long linger,
 * several requests in flight. Order within each target partition is the send order (idempotence
 * keeps it across retries).
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
      Long toMs,
      boolean allowIncomplete,
      boolean append) {
    /** The whole archive, with plain client properties ({@code bootstrap.servers} among them). */
    public Settings(Properties client, Path file, String topic, double speed, int partitionsIfNew) {
      this(
          KafkaConnection.of(client.getProperty("bootstrap.servers"), client),
          file,
          topic,
          speed,
          partitionsIfNew,
          null,
          null,
          false,
          false);
    }
  }

  /** Kafka's longest topic name. */
  static final int MAX_TOPIC_LENGTH = 249;

  /** Extensions of an archive's name that are not part of what it is called. */
  static final List<String> EXTENSIONS =
      List.of(".gz", ".gzip", ".zst", ".zstd", ".lz4", ".jsonl", ".ndjson", ".json");

  /**
   * The topic a replay of {@code file} goes to when none is named: {@code tpot.replay.} and the
   * file's whole name without its archive extensions ({@code run.day1.jsonl.zst} gives {@code
   * tpot.replay.run.day1}, never the same as {@code run.day2}'s), so that it never lands in the
   * live topic and a second replay of the same file is refused rather than counted twice. A
   * character Kafka refuses in a topic name becomes {@code -}; a name too long for Kafka is cut and
   * ends with 8 hex digits of the whole name's hash, so two long names stay apart.
   */
  public static String defaultTopic(Path file) {
    String base = file.getFileName().toString();
    for (boolean cut = true; cut; ) {
      cut = false;
      for (String extension : EXTENSIONS) {
        if (base.length() > extension.length()
            && base.toLowerCase(Locale.ROOT).endsWith(extension)) {
          base = base.substring(0, base.length() - extension.length());
          cut = true;
        }
      }
    }
    String safe = base.replaceAll("[^A-Za-z0-9._-]", "-");
    String topic = Topics.REPLAY_PREFIX + (safe.isEmpty() ? "archive" : safe);
    if (topic.length() <= MAX_TOPIC_LENGTH) {
      return topic;
    }
    String hash = String.format(Locale.ROOT, "-%08x", base.hashCode());
    return topic.substring(0, MAX_TOPIC_LENGTH - hash.length()) + hash;
  }

  /**
   * Refuses a topic name Kafka would refuse (empty, {@code .} or {@code ..}, longer than 249
   * characters, a character other than {@code [a-zA-Z0-9._-]}), before anything is created.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  public static void checkTopicName(String topic) {
    try {
      Topic.validate(topic);
    } catch (InvalidTopicException e) {
      throw new IllegalArgumentException(
          "replay: cannot replay into topic '"
              + topic
              + "': "
              + e.getMessage()
              + " (Kafka's rules: 1 to 249 characters of [a-zA-Z0-9._-], not . or ..)",
          e);
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
    try {
      checkTopicName(settings.topic());
      // the archive is checked before Kafka is asked anything: a refused replay creates nothing
      Optional<ArchiveManifest> manifest =
          ArchiveManifest.check(
              settings.file(), "replay", settings.allowIncomplete(), progress::warn);
      String notStreamable =
          manifest.isEmpty() ? null : manifest.get().whyNotStreamable(settings.file());
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
        if (manifest.isPresent() && notStreamable == null) {
          return streamed(target, manifest.get(), startNs);
        }
        if (notStreamable != null) {
          progress.println(
              "replay: "
                  + settings.file()
                  + " is read whole and sorted before it is sent: "
                  + notStreamable);
        }
        return sorted(target, startNs);
      } finally {
        target.thenAccept(t -> t.producer().close(Duration.ZERO));
      }
    } finally {
      progress.close();
    }
  }

  /** Reads the whole archive, sorts it into the replay order, then sends it. */
  private Result sorted(CompletableFuture<Target> target, long startNs)
      throws IOException, InterruptedException {
    ArchiveReader.Archive archive = read(target);
    long readNs = System.nanoTime();
    int partitions = await(target).partitions();
    List<ArchivedRecord> records = archive.records();
    progress.phase("sending to " + settings.topic(), "records", records.size());
    ReplaySenders senders = senders(await(target));
    try {
      for (int from = 0; from < records.size(); from += STRETCH) {
        List<ArchivedRecord> stretch =
            records.subList(from, Math.min(records.size(), from + STRETCH));
        senders.send(stretch);
      }
    } catch (InterruptedException | RuntimeException e) {
      senders.close(false);
      throw e;
    }
    ReplaySenders.Sent sent = senders.finishAndClose();
    long sentNs = System.nanoTime();
    return result(
        sent,
        partitions,
        startNs,
        String.format(
            Locale.ROOT,
            "read and sorted in %.1f s, sent in %.1f s",
            (readNs - startNs) / 1e9,
            (sentNs - readNs) / 1e9),
        records.size(),
        archive.corrupt(),
        archive.outsideRange());
  }

  /**
   * Sends an archive whose lines are in the replay order (its manifest says so) while reading it:
   * each stretch of the file goes to the senders as soon as it is read.
   */
  private Result streamed(CompletableFuture<Target> target, ArchiveManifest manifest, long startNs)
      throws IOException, InterruptedException {
    ArchiveReader.Options options =
        new ArchiveReader.Options(settings.fromMs(), settings.toMs(), this::corruptLine, null);
    progress.phase(
        "replaying " + settings.file().getFileName() + " to " + settings.topic(),
        "records",
        options.ranged() ? -1 : manifest.records());
    ReplaySenders[] senders = {null};
    ArchiveReader.Streamed read;
    try {
      read =
          ArchiveReader.stream(
              settings.file(),
              options,
              stretch -> {
                if (senders[0] == null) {
                  senders[0] = senders(await(target));
                }
                try {
                  senders[0].send(stretch);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new InterruptedIOException("interrupted while sending");
                }
              });
    } catch (ArchiveReader.NotInReplayOrder e) {
      IllegalStateException outOfOrder = outOfOrder(e);
      if (senders[0] != null) {
        try {
          senders[0].finishAndClose(); // what was handed over is sent: the message says so
        } catch (InterruptedException | RuntimeException f) {
          outOfOrder.addSuppressed(f);
        }
      }
      throw outOfOrder;
    } catch (IOException | RuntimeException e) {
      if (senders[0] != null) {
        senders[0].close(false);
      }
      // a send Kafka refused, met while the file was still being read, is not a read failure
      if (e instanceof InterruptedIOException
          || e instanceof ReplaySenders.Rejected
          || senders[0] == null) {
        throw e;
      }
      throw new IOException(
          String.format(
              Locale.ROOT,
              "replay: %s could not be read past record %,d (%s); the records before it were"
                  + " handed to Kafka and may be in %s. Replay a sound copy into a new topic",
              settings.file(),
              progress.done(),
              e.getMessage(),
              settings.topic()),
          e);
    }
    Target ready = await(target); // also for an archive without a record in range
    ReplaySenders streaming = senders[0] != null ? senders[0] : senders(ready);
    ReplaySenders.Sent sent = streaming.finishAndClose();
    int partitions = ready.partitions();
    return result(
        sent,
        partitions,
        startNs,
        "sent while read, in the order its manifest gives",
        read.records(),
        read.corrupt(),
        read.outsideRange());
  }

  /** What to say when a streamed file turns out not to be in the replay order. */
  private IllegalStateException outOfOrder(ArchiveReader.NotInReplayOrder e) {
    return new IllegalStateException(
        "replay: "
            + e.getMessage()
            + ", although "
            + ArchiveManifest.of(settings.file()).getFileName()
            + " says its lines are in that order (was the file changed after the export?);"
            + " the records above that line were sent to "
            + settings.topic()
            + ". Delete the manifest and replay into a new topic: the archive is then read"
            + " whole and sorted first",
        e);
  }

  private void corruptLine(long line, String reason) {
    progress.warn("replay: " + settings.file() + " line " + line + " skipped: " + reason);
  }

  private Result result(
      ReplaySenders.Sent sent,
      int partitions,
      long startNs,
      String how,
      long archived,
      long corrupt,
      long outsideRange) {
    double seconds = (System.nanoTime() - startNs) / 1e9;
    progress.finish(
        String.format(
            Locale.ROOT,
            "replay: %,d records published to %s (%d partitions) in %.1f s (%,.0f records/s; %s):"
                + " %,d archived records, %,d distinct heartbeats sent to every partition, %,d"
                + " duplicate heartbeats dropped, %,d corrupt lines skipped%s%nreplay: to"
                + " aggregate it apart from the live pipeline: tpot aggregate --topic %s"
                + " --application-id %s.aggregator --summaries-topic %s.summaries",
            sent.published(),
            settings.topic(),
            partitions,
            seconds,
            sent.published() / Math.max(seconds, 1e-3),
            how,
            archived,
            sent.heartbeats(),
            sent.duplicates(),
            corrupt,
            outsideRange > 0
                ? String.format(Locale.ROOT, ", %,d outside --from/--to", outsideRange)
                : "",
            settings.topic(),
            settings.topic(),
            settings.topic()));
    return new Result(sent.published(), sent.heartbeats(), sent.duplicates(), corrupt);
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
              settings.fromMs(), settings.toMs(), this::corruptLine, progress));
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

  private ReplaySenders senders(Target target) {
    return new ReplaySenders(
        target.producer(), target.partitions(), settings.topic(), settings.speed(), progress);
  }

  /** The target topic's partition count and a producer connected to it. */
  private record Target(KafkaProducer<byte[], byte[]> producer, int partitions) {}

  private Target openTarget() {
    // the check's admin client also makes the topic: one connection and authentication, not two
    int partitions = KafkaPreflight.check(settings.kafka(), (admin, brokers) -> ensureTopic(admin));
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

  /** Records handed to the senders at a time. */
  private static final int STRETCH = 16_384;

  /**
   * Creates the topic with infinite retention when new; warns when an existing one would delete.
   */
  private int ensureTopic(Admin admin) throws InterruptedException {
    KafkaTopics.Ensured topic =
        KafkaTopics.ensure(
            admin,
            settings.kafka(),
            settings.topic(),
            settings.partitionsIfNew(),
            Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"));
    if (!topic.created() && !settings.append()) {
      refuseIfNotEmpty(admin);
    }
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

  /**
   * Refuses a target that already holds records: a live aggregator reading it would count the
   * replayed requests twice and its windows would wait for the old heartbeats, and a second replay
   * of the same archive would double it.
   */
  private void refuseIfNotEmpty(Admin admin) throws InterruptedException {
    long records;
    try {
      records = KafkaTopics.recordsIn(admin, settings.kafka(), settings.topic());
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "replay: could not tell whether "
              + settings.topic()
              + " is empty ("
              + e.getCause().getMessage()
              + "); replay into a new topic, or pass --append",
          e.getCause());
    }
    if (records > 0) {
      throw new IllegalStateException(
          String.format(
              Locale.ROOT,
              "replay: %s already holds %,d records. Replayed into a topic a live aggregator"
                  + " reads, the requests in open windows are counted twice and old heartbeats"
                  + " hold live windows back; replayed twice, an archive is counted twice. Replay"
                  + " into a new topic (leave --topic out: %s), or pass --append to add to this"
                  + " one anyway",
              settings.topic(),
              records,
              defaultTopic(settings.file())));
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
