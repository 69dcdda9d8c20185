package io.tpotstream.app.archive;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.app.cli.TpotCli;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.archive.ArchiveReader;
import io.tpotstream.archive.ArchiveWriter;
import io.tpotstream.archive.ArchivedRecord;
import io.tpotstream.archive.Exporter;
import io.tpotstream.archive.Replayer;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ExportReplayTest {
  // In the past: brokers reject timestamps more than an hour ahead
  // (log.message.timestamp.after.max.ms).
  private static final long T0 = 1_700_000_000_000L;

  /** A new topic of one published run, and how many records it holds. */
  private record Published(String topic, int records) {}

  /**
   * A new topic named after {@code prefix}, 3 partitions: a heartbeat per partition at T0, 20
   * requests × 5 tokens, a final heartbeat each.
   */
  private static Published publishRun(TestKafka kafka, String prefix) {
    String topic = TestKafka.uniqueName(prefix);
    kafka.createTopic(topic, 3, java.util.Map.of("retention.ms", "-1"));
    return new Published(topic, publishEvents(kafka, topic));
  }

  private static int publishEvents(TestKafka kafka, String topic) {
    int count = 0;
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      for (int p = 0; p < 3; p++) {
        TokenEvent hb = TokenEvent.heartbeat(T0, "run", "prod-1", T0 - 200, false, 5L);
        producer.send(new ProducerRecord<>(topic, p, T0, "prod-1", TokenEventCodec.encode(hb)));
        count++;
      }
      for (int r = 0; r < 20; r++) {
        String id = "req-" + r;
        long start = T0 + r * 1_000L;
        send(producer, topic, TokenEvent.start(start, "run", id, "model-a", null, null, "prod-1"));
        count++;
        for (int s = 0; s < 5; s++) {
          send(
              producer,
              topic,
              TokenEvent.token(
                  start + 10 + s,
                  "run",
                  id,
                  "model-a",
                  null,
                  (10 + s) * 1_000_000L,
                  s,
                  1,
                  TokenKind.CONTENT,
                  "prod-1"));
          count++;
        }
        send(
            producer,
            topic,
            TokenEvent.end(
                start + 20,
                "run",
                id,
                "model-a",
                null,
                20_000_000L,
                5,
                3,
                5,
                "stop",
                null,
                "prod-1"));
        count++;
      }
      for (int p = 0; p < 3; p++) {
        TokenEvent hb = TokenEvent.heartbeat(T0 + 30_000, "run", "prod-1", T0 + 29_800, true, 5L);
        producer.send(
            new ProducerRecord<>(topic, p, T0 + 30_000, "prod-1", TokenEventCodec.encode(hb)));
        count++;
      }
      producer.flush();
    }
    return count;
  }

  private static void send(KafkaProducer<String, byte[]> producer, String topic, TokenEvent e) {
    producer.send(
        new ProducerRecord<>(topic, null, e.ts(), e.requestId(), TokenEventCodec.encode(e)));
  }

  private static List<ConsumerRecord<String, byte[]>> readAll(
      TestKafka kafka, String topic, int expected) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(topic + "-check"))) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (records.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(300)).forEach(records::add);
      }
      consumer.poll(Duration.ofMillis(300)).forEach(records::add);
    }
    return records;
  }

  /**
   * {@code file} replayed as fast as the broker takes it into {@code target}, new with so many
   * partitions.
   */
  private static Replayer.Result replay(TestKafka kafka, Path file, String target, int partitions)
      throws Exception {
    return new Replayer(
            new Replayer.Settings(client(kafka), file, target, 0, partitions), Progress.quiet())
        .run();
  }

  private static Properties client(TestKafka kafka) {
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    return p;
  }

  @Test
  void exportWritesEveryRecordAndReplayKeepsOrderKeysTimestampsAndFansOutHeartbeats(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    Published run = publishRun(kafka, "export-src");
    Path file = dir.resolve("run.jsonl.gz");
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    long exported =
        new Exporter(
                new Exporter.Settings(client(kafka), run.topic(), file, null, null, false),
                Progress.start(
                    "export", Progress.Mode.PLAIN, new PrintStream(progress, true, UTF_8)))
            .run();
    assertEquals(run.records(), exported);
    assertTrue(progress.toString(UTF_8).contains("export: done, " + run.records() + " records"));

    // replay into a topic with another partition count: 2 instead of 3
    String target = TestKafka.uniqueName("replay-dst");
    Replayer.Result result = replay(kafka, file, target, 2);
    // 2 distinct heartbeats (start, final), each seen on 3 source partitions: 4 duplicates dropped
    assertEquals(2, result.heartbeatsSent());
    assertEquals(4, result.duplicateHeartbeats());
    int tokenEvents = run.records() - 6;
    int expectedOnTarget = tokenEvents + 2 * 2;
    List<ConsumerRecord<String, byte[]>> replayed = readAll(kafka, target, expectedOnTarget);
    assertEquals(expectedOnTarget, replayed.size());

    String retention =
        kafka
            .admin()
            .describeConfigs(
                List.of(
                    new org.apache.kafka.common.config.ConfigResource(
                        org.apache.kafka.common.config.ConfigResource.Type.TOPIC, target)))
            .all()
            .get()
            .values()
            .iterator()
            .next()
            .get("retention.ms")
            .value();
    assertEquals("-1", retention);

    for (int partition = 0; partition < 2; partition++) {
      int p = partition;
      List<TokenEvent> events =
          replayed.stream()
              .filter(r -> r.partition() == p)
              .map(r -> TokenEventCodec.decode(r.value()))
              .toList();
      // each partition starts with the first heartbeat and ends with the final one
      assertEquals(EventType.HEARTBEAT, events.get(0).type());
      assertTrue(events.get(events.size() - 1).finalHeartbeat());
      // within a partition, ts never goes down (the producer's promise is kept)
      for (int i = 1; i < events.size(); i++) {
        assertTrue(events.get(i).ts() >= events.get(i - 1).ts(), "ts order on partition " + p);
      }
    }
    for (ConsumerRecord<String, byte[]> r : replayed) {
      TokenEvent e = TokenEventCodec.decode(r.value());
      assertEquals(e.ts(), r.timestamp());
      if (e.type() != EventType.HEARTBEAT) {
        assertEquals(e.requestId(), r.key());
      }
    }
  }

  /**
   * A heartbeat that does not name its producer is replayed as any record: once, to the partition
   * its key gives, never fanned out; a keyless record goes to the partitions in turn.
   */
  @Test
  void aMalformedHeartbeatIsReplayedByItsKeyAsAnyRecord(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    long ts = System.currentTimeMillis() - 60_000;
    Path file = dir.resolve("malformed.jsonl");
    Files.writeString(
        file,
        "{\"key\":\"hb-key\",\"partition\":0,\"offset\":0,\"timestamp\":"
            + ts
            + ",\"value\":{\"type\":\"heartbeat\",\"v\":1,\"ts\":"
            + ts
            + ",\"runId\":\"run\"}}\n"
            + "{\"key\":null,\"partition\":0,\"offset\":1,\"timestamp\":"
            + (ts + 1)
            + ",\"value\":\"not a token event\"}\n");
    new ArchiveManifest( // as an export would leave it: whole, in partition order
            ArchiveManifest.FORMAT,
            "t",
            List.of(0),
            2,
            Files.size(file),
            ArchiveManifest.PARTITION_ORDER,
            null,
            null)
        .withChecksumOf(file)
        .write(file);
    String target = TestKafka.uniqueName("replay-malformed");
    Replayer.Result result = replay(kafka, file, target, 3);
    assertEquals(2, result.records());
    assertEquals(0, result.heartbeatsSent());
    List<ConsumerRecord<String, byte[]>> replayed = readAll(kafka, target, 2);
    assertEquals(2, replayed.size());
    ConsumerRecord<String, byte[]> heartbeat =
        replayed.stream().filter(r -> "hb-key".equals(r.key())).findFirst().orElseThrow();
    int byKey = Utils.toPositive(Utils.murmur2("hb-key".getBytes(UTF_8))) % 3;
    assertEquals(byKey, heartbeat.partition());
    ConsumerRecord<String, byte[]> keyless =
        replayed.stream().filter(r -> r.key() == null).findFirst().orElseThrow();
    assertEquals(0, keyless.partition()); // the first keyless record: partition 0
    assertEquals("not a token event", new String(keyless.value(), UTF_8));
  }

  @Test
  void followKeepsExportingNewRecordsUntilStoppedAndTheFileHoldsThemAll(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    Published run = publishRun(kafka, "export-follow");
    Path file = dir.resolve("follow.jsonl.zst");
    Progress progress = Progress.quiet();
    Exporter exporter =
        new Exporter(
            new Exporter.Settings(client(kafka), run.topic(), file, null, null, true), progress);
    java.util.concurrent.CompletableFuture<Long> exported =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return exporter.run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(30)).until(() -> progress.done() == run.records());
    int second = publishEvents(kafka, run.topic()); // the same run again, appended
    await().atMost(Duration.ofSeconds(30)).until(() -> progress.done() == run.records() + second);
    exporter.stop();
    assertEquals(run.records() + second, exported.get(30, java.util.concurrent.TimeUnit.SECONDS));
    List<ArchivedRecord> records =
        ArchiveReader.readInReplayOrder(
            file,
            (line, reason) -> {
              throw new AssertionError(reason);
            });
    assertEquals(run.records() + second, records.size());
    // lines as they were polled: a partition without new records must not hold the others back
    ArchiveManifest manifest = ArchiveManifest.read(file).orElseThrow();
    assertEquals(ArchiveManifest.PARTITION_ORDER, manifest.order());
    assertEquals(run.records() + second, manifest.records());
  }

  @Test
  void exportOfATimeRangeKeepsOnlyRecordsInsideIt(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    String source = publishRun(kafka, "export-range").topic();
    Path file = dir.resolve("range.jsonl");
    // requests 5..9 start at T0+5000..T0+9000 and end 20 ms later: [T0+5000, T0+10000)
    new Exporter(
            new Exporter.Settings(client(kafka), source, file, T0 + 5_000, T0 + 10_000, false),
            Progress.quiet())
        .run();
    List<ArchivedRecord> records =
        ArchiveReader.readInReplayOrder(
            file,
            (line, reason) -> {
              throw new AssertionError(reason);
            });
    assertEquals(5 * 7, records.size());
    for (ArchivedRecord r : records) {
      assertTrue(r.timestamp() >= T0 + 5_000 && r.timestamp() < T0 + 10_000);
    }
    assertEquals(5, records.stream().filter(r -> r.event().type() == EventType.START).count());
    assertTrue(Files.size(file) > 0);
  }

  @Test
  void aPacedReplaysProgressCountsWhatWasSentNotWhatWasHandedOver(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    Path file = dir.resolve("run.jsonl.zst");
    Published run = publishAndExport(kafka, "paced-progress", file);
    String target = TestKafka.uniqueName("paced-progress-copy");
    Progress progress = Progress.quiet();
    // 20 s of event time at 4x: 5 s, every record in one stretch handed over at the start
    java.util.concurrent.CompletableFuture<Replayer.Result> replayed =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return new Replayer(
                        new Replayer.Settings(client(kafka), file, target, 4, 3), progress)
                    .run();
              } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
              }
            });
    await().atMost(Duration.ofSeconds(30)).until(() -> kafka.endOffsetSum(target) > 0);
    // the first records are out, the last 15 s of event time are not: the count says so
    long done = progress.done();
    assertTrue(done < run.records(), done + " of " + run.records() + " counted");
    Replayer.Result result = replayed.get(60, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(result.records(), kafka.endOffsetSum(target));
  }

  /** A new published run (see {@link #publishRun}), exported whole into {@code file}, quietly. */
  private static Published publishAndExport(TestKafka kafka, String prefix, Path file)
      throws Exception {
    Published run = publishRun(kafka, prefix);
    new Exporter(
            new Exporter.Settings(client(kafka), run.topic(), file, null, null, false),
            Progress.quiet())
        .run();
    return run;
  }

  /** The records of {@code topic}, "key timestamp value" per partition, in offset order. */
  private static List<List<String>> byPartition(
      TestKafka kafka, String topic, int partitions, int expected) {
    List<List<String>> out = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      out.add(new ArrayList<>());
    }
    for (ConsumerRecord<String, byte[]> r : readAll(kafka, topic, expected)) {
      out.get(r.partition())
          .add(r.key() + " " + r.timestamp() + " " + new String(r.value(), UTF_8));
    }
    return out;
  }

  /** Replays {@code file} into a new topic of 2 partitions; returns the progress output. */
  private static String replayInto(TestKafka kafka, Path file, String target) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new Replayer(
            new Replayer.Settings(client(kafka), file, target, 0, 2),
            Progress.start("replay", Progress.Mode.PLAIN, new PrintStream(out, true, UTF_8)))
        .run();
    return out.toString(UTF_8);
  }

  /**
   * An export comes out in the replay order with a manifest that says so, and replay sends it while
   * reading it; the target then holds exactly what a replay of the same file read whole and sorted
   * gives.
   */
  @Test
  void anExportIsReplayedAsAStreamAndGivesWhatAFullSortGives(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("run.jsonl.zst");
    Published run = publishAndExport(kafka, "export-stream", file);
    ArchiveManifest manifest = ArchiveManifest.read(file).orElseThrow();
    assertEquals(
        new ArchiveManifest(
            ArchiveManifest.FORMAT,
            run.topic(),
            List.of(0, 1, 2),
            run.records(),
            Files.size(file),
            ArchiveManifest.REPLAY_ORDER,
            null,
            null,
            true,
            ArchiveManifest.crc32c(file),
            List.of(
                new ArchiveManifest.Offsets(0, 0, 44, 44L),
                new ArchiveManifest.Offsets(1, 0, 58, 58L),
                new ArchiveManifest.Offsets(2, 0, 44, 44L)),
            List.of()),
        manifest);
    // the lines are in the replay order: streaming them gives what sorting them gives
    List<String> streamed = new ArrayList<>();
    ArchiveReader.stream(
        file,
        ArchiveReader.Options.all((line, reason) -> {}),
        stretch -> stretch.forEach(r -> streamed.add(r.partition() + "/" + r.offset())));
    assertEquals(
        ArchiveReader.readInReplayOrder(file, (line, reason) -> {}).stream()
            .map(r -> r.partition() + "/" + r.offset())
            .toList(),
        streamed);
    assertEquals(run.records(), streamed.size());

    String asStream = TestKafka.uniqueName("replay-stream");
    assertTrue(replayInto(kafka, file, asStream).contains("sent while read"));
    Path copy = Files.copy(file, dir.resolve("copy.jsonl.zst")); // no manifest beside it
    String sorted = TestKafka.uniqueName("replay-sorted");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new Replayer(
            new Replayer.Settings(
                KafkaConnection.of(kafka.bootstrapServers(), client(kafka)),
                copy,
                sorted,
                0,
                2,
                null,
                null,
                true, // without its manifest, whether it is whole cannot be told
                false),
            Progress.start("replay", Progress.Mode.PLAIN, new PrintStream(out, true, UTF_8)))
        .run();
    assertTrue(out.toString(UTF_8).contains("read and sorted in"));

    int expected = run.records() - 6 + 2 * 2; // heartbeats: 2 distinct, to both partitions
    List<List<String>> fromStream = byPartition(kafka, asStream, 2, expected);
    assertEquals(expected, fromStream.get(0).size() + fromStream.get(1).size());
    assertEquals(byPartition(kafka, sorted, 2, expected), fromStream);
  }

  @Test
  void aManifestThatNoLongerDescribesItsFileStopsTheReplayBeforeAnythingIsSent(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    Path file = dir.resolve("run.jsonl");
    publishAndExport(kafka, "export-changed", file);
    long size = Files.size(file);
    Files.write(file, "\n".getBytes(UTF_8), java.nio.file.StandardOpenOption.APPEND);
    String target = TestKafka.uniqueName("replay-changed");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> replayInto(kafka, file, target));
    assertEquals(
        file
            + " has "
            + (size + 1)
            + " bytes and its manifest was written for "
            + size
            + ": the file changed after the export (copied while written? cut?); nothing was"
            + " read. Export it again, or delete run.jsonl.manifest.json and pass"
            + " --allow-incomplete to read it as a file of unknown completeness",
        e.getMessage());
    assertEquals(0, kafka.endOffsetSum(target), "nothing sent");
  }

  /**
   * Writes {@code file}: one request start per offset of partition 0, in the order given, each at
   * {@code ts} + its offset, with a manifest that says the lines are in the replay order.
   */
  private static void saidToBeInReplayOrder(Path file, long ts, int... offsets) throws Exception {
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      for (int i : offsets) {
        TokenEvent e = TokenEvent.start(ts + i, "run", "req-" + i, "model-a", null, null, "p");
        writer.write("req-" + i, 0, i, ts + i, TokenEventCodec.encode(e));
      }
    }
    new ArchiveManifest(
            ArchiveManifest.FORMAT,
            "t",
            List.of(0),
            offsets.length,
            Files.size(file),
            ArchiveManifest.REPLAY_ORDER,
            null,
            null)
        .withChecksumOf(file)
        .write(file);
  }

  /**
   * stats computes an export in the replay order while reading it (its manifest says so) and gives
   * what it gives for the same file read whole and sorted (a copy without the manifest).
   */
  @Test
  void statsOfAnExportComputedWhileReadingGivesWhatAWholeReadGives(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    Path file = dir.resolve("run.jsonl.zst");
    publishAndExport(kafka, "export-stats", file);
    Path copy = Files.copy(file, dir.resolve("copy.jsonl.zst")); // no manifest beside it
    TpotCli.Result streamed = TpotCli.tpot("stats", "--format", "json", file.toString());
    TpotCli.Result whole =
        TpotCli.tpot("stats", "--format", "json", "--allow-incomplete", copy.toString());
    assertEquals(0, streamed.exit(), streamed.err());
    assertEquals(0, whole.exit(), whole.err());
    assertTrue(streamed.out().lines().count() >= 2, streamed.out());
    assertEquals(whole.out(), streamed.out());
  }

  /**
   * A file out of order behind a manifest that says otherwise: stats finds out while reading it,
   * says so, and reads it whole and sorted instead, with the summaries of the sorted file.
   */
  @Test
  void statsOfAFileOutOfOrderBehindItsManifestReadsItWhole(@TempDir Path dir) throws Exception {
    long ts = System.currentTimeMillis() - 60_000;
    Path file = dir.resolve("edited.jsonl");
    saidToBeInReplayOrder(file, ts, 0, 2, 1);
    Path sorted = dir.resolve("sorted.jsonl");
    saidToBeInReplayOrder(sorted, ts, 0, 1, 2);
    TpotCli.Result edited = TpotCli.tpot("stats", "--format", "json", file.toString());
    TpotCli.Result inOrder = TpotCli.tpot("stats", "--format", "json", sorted.toString());
    assertEquals(0, edited.exit(), edited.err());
    assertTrue(
        edited
            .err()
            .contains(
                "tpot stats: "
                    + file
                    + " line 3 comes before the line above it in the replay order, although its"
                    + " manifest says its lines are in that order: reading it whole"),
        edited.err());
    assertTrue(inOrder.out().contains("\"started\":3"), inOrder.out());
    assertEquals(inOrder.out(), edited.out());
  }

  @Test
  void aFileOutOfOrderBehindAManifestSayingOtherwiseStopsTheReplayWithWhatToDo(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    Path file = dir.resolve("edited.jsonl");
    saidToBeInReplayOrder(file, System.currentTimeMillis() - 60_000, 0, 2, 1);
    String target = TestKafka.uniqueName("replay-edited");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> replayInto(kafka, file, target));
    assertEquals(
        "replay: "
            + file
            + " line 3 comes before the line above it in the replay order, although"
            + " edited.jsonl.manifest.json says its lines are in that order (was the file changed"
            + " after the export?); the records above that line were sent to "
            + target
            + ". Delete the manifest and replay into a new topic: the archive is then read whole"
            + " and sorted first",
        e.getMessage());
  }

  /**
   * An export takes what the topic holds when it starts: records written while it reads are left
   * out, and the file is still whole, in the replay order, with its manifest.
   */
  @Test
  void anExportOfATopicBeingWrittenIsTheTopicAsItStarted(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    Published run = publishRun(kafka, "export-live");
    java.util.concurrent.atomic.AtomicBoolean writing =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.atomic.AtomicLong written = new java.util.concurrent.atomic.AtomicLong();
    Thread producer =
        new Thread(
            () -> {
              try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(kafka.producerProps())) {
                for (int i = 0; writing.get(); i++) {
                  long now = System.currentTimeMillis();
                  send(
                      p,
                      run.topic(),
                      TokenEvent.start(now, "run", "live-" + i, "m", null, null, "p"));
                  if (i % 50 == 49) {
                    p.flush();
                    written.addAndGet(50);
                  }
                }
              }
            },
            "live-producer");
    producer.start();
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> written.get() >= 500);
      Path file = dir.resolve("live.jsonl.zst");
      // small polls: the partitions reach their end offsets in different polls, and a finished
      // partition's fetches go on bringing the records written since
      Properties small = client(kafka);
      small.put("max.poll.records", "20");
      small.put("max.partition.fetch.bytes", "4096");
      long exported =
          new Exporter(
                  new Exporter.Settings(small, run.topic(), file, null, null, false),
                  Progress.quiet())
              .run();
      writing.set(false);
      producer.join();
      ArchiveManifest manifest = ArchiveManifest.read(file).orElseThrow();
      assertEquals(ArchiveManifest.REPLAY_ORDER, manifest.order());
      assertEquals(exported, manifest.records());
      assertTrue(exported >= run.records() + 500, "exported " + exported);
      assertTrue(exported < run.records() + written.get() + 50, "exported " + exported);
      // each partition's offsets from 0 without a gap: a snapshot, nothing lost in between
      List<ArchivedRecord> records = ArchiveReader.readInReplayOrder(file, (l, r) -> {});
      assertEquals(exported, records.size());
      for (int p = 0; p < 3; p++) {
        int partition = p;
        List<Long> offsets =
            records.stream()
                .filter(r -> r.partition() == partition)
                .map(ArchivedRecord::offset)
                .sorted()
                .toList();
        for (int i = 0; i < offsets.size(); i++) {
          assertEquals(i, offsets.get(i), "offsets of partition " + p);
        }
      }
    } finally {
      writing.set(false);
      producer.join();
    }
  }

  /**
   * A record the broker refuses stops a streamed replay with what was refused and what to check.
   */
  @Test
  void aRecordKafkaRejectsStopsAStreamedReplay(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    long future = System.currentTimeMillis() + java.util.concurrent.TimeUnit.HOURS.toMillis(3);
    Path file = dir.resolve("future.jsonl.lz4");
    saidToBeInReplayOrder(file, future, java.util.stream.IntStream.range(0, 30_000).toArray());
    String target = TestKafka.uniqueName("replay-future");
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> replayInto(kafka, file, target));
    assertTrue(
        e.getMessage().startsWith("Kafka rejected a replayed record (")
            && e.getMessage().endsWith("check the broker's and the archive's clocks"),
        e.getMessage());
  }
}
