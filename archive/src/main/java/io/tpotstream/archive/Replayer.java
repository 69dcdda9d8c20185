package io.tpotstream.archive;

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
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
import org.apache.kafka.common.utils.Utils;

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
      Optional<ArchiveManifest> manifest = ArchiveManifest.read(settings.file());
      String notStreamable =
          manifest.isEmpty() ? null : manifest.get().whyNotStreamable(settings.file());
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
    Senders senders = new Senders(await(target));
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
    Sent sent = senders.finishAndClose();
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
    Senders[] senders = {null};
    ArchiveReader.Streamed read;
    try {
      read =
          ArchiveReader.stream(
              settings.file(),
              options,
              stretch -> {
                if (senders[0] == null) {
                  senders[0] = new Senders(await(target));
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
      throw e;
    }
    Target ready = await(target); // also for an archive without a record in range
    Senders streaming = senders[0] != null ? senders[0] : new Senders(ready);
    Sent sent = streaming.finishAndClose();
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
      Sent sent,
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
                + " duplicate heartbeats dropped, %,d corrupt lines skipped%s",
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
                : ""));
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

  /**
   * @param published Kafka records written (a heartbeat counts once per partition)
   */
  private record Sent(long published, long heartbeats, long duplicates) {}

  /** Records handed to the senders at a time. */
  private static final int STRETCH = 16_384;

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

  /**
   * Sends stretches of records, in the replay order, on {@link #SENDERS} threads that each own some
   * target partitions (a partition's records keep their order: one thread sends them all). A keyed
   * record goes to the partition Kafka's default partitioner gives its key; a record without a key
   * to the partitions in turn; each distinct heartbeat to every partition, duplicates dropped.
   */
  private final class Senders {
    private final KafkaProducer<byte[], byte[]> producer;
    private final int partitions;
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

    /** Senders to the target topic, through its producer. */
    Senders(Target target) {
      this.producer = target.producer();
      this.partitions = target.partitions();
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
        throw new IllegalStateException(
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
      progress.phase("flushing to " + settings.topic(), "records", -1);
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
     * Closes the producer: after {@link #finish()} sent everything, at once; else (the replay
     * failed) the senders stop without sending what is queued, and nothing waits for the broker.
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
      String topic = settings.topic();
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
          if (settings.speed() > 0) {
            pace(r.ts() - firstTs, paceStartNs);
          }
          byte[] key = p == EVERY ? r.keyBytes() : stretch.keys()[i];
          byte[] value = r.valueBytes();
          Long timestamp = r.timestamp();
          if (p == EVERY) {
            for (int partition = sender; partition < partitions; partition += senders) {
              producer.send(
                  new ProducerRecord<>(topic, partition, timestamp, key, value), onFailure);
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
  private int ensureTopic(Admin admin) throws InterruptedException {
    KafkaTopics.Ensured topic =
        KafkaTopics.ensure(
            admin,
            settings.kafka(),
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
