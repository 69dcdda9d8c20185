package io.tpotstream.app.archive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.app.cli.TpotCli;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.archive.Exporter;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An archive knows whether it is whole: an export stopped before its end or overtaken by retention
 * is marked incomplete and refused by replay and stats unless allowed; a damaged file is refused
 * before anything is sent; a replay never lands in a topic that already holds records unless told.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ArchiveCompletenessTest {
  private static final int RECORDS = 20_000;
  private static final long T0 = System.currentTimeMillis() - 3_600_000L;

  /** {@code RECORDS} request starts over {@code partitions} partitions of a new topic. */
  private static String publish(TestKafka kafka, String prefix, int partitions) {
    String topic = TestKafka.uniqueName(prefix);
    kafka.createTopic(topic, partitions, Map.of("retention.ms", "-1"));
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      for (int i = 0; i < RECORDS; i++) {
        String id = "req-" + i;
        TokenEvent e = TokenEvent.start(T0 + i, "run", id, "model-a", null, null, "prod-1");
        producer.send(
            new ProducerRecord<>(topic, i % partitions, e.ts(), id, TokenEventCodec.encode(e)));
      }
      producer.flush();
    }
    return topic;
  }

  /**
   * Client settings that make an export read a few records per fetch and hold it inside its second
   * poll that returns records (see {@link HoldSecondPoll}) until {@code hold} is released.
   */
  private static Properties heldClient(TestKafka kafka, String hold) {
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    p.put("fetch.max.bytes", "1024");
    p.put("max.partition.fetch.bytes", "1024");
    p.put("max.poll.records", "10");
    p.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, HoldSecondPoll.class.getName());
    p.put(HoldSecondPoll.HOLD_CONFIG, hold);
    return p;
  }

  /**
   * A consumer interceptor that keeps the consumer inside its second poll that returns records
   * until the test releases it: what the test does meanwhile (delete records, stop the export)
   * happens while the export is a few records in, whatever the speed of the machine.
   */
  public static final class HoldSecondPoll implements ConsumerInterceptor<byte[], byte[]> {
    static final String HOLD_CONFIG = "tpot.test.hold";
    static final Map<String, CountDownLatch> HOLDS = new ConcurrentHashMap<>();

    /** Counted down when the consumer of that hold is held. */
    static final Map<String, CountDownLatch> HELD = new ConcurrentHashMap<>();

    private CountDownLatch hold;
    private CountDownLatch held;
    private int polls;

    @Override
    public void configure(Map<String, ?> configs) {
      hold = HOLDS.get((String) configs.get(HOLD_CONFIG));
      held = HELD.get((String) configs.get(HOLD_CONFIG));
    }

    @Override
    public ConsumerRecords<byte[], byte[]> onConsume(ConsumerRecords<byte[], byte[]> records) {
      if (!records.isEmpty() && ++polls == 2) {
        if (held != null) {
          held.countDown();
        }
        try {
          hold.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {}

    @Override
    public void close() {}
  }

  private static Properties client(TestKafka kafka) {
    Properties p = new Properties();
    p.put("bootstrap.servers", kafka.bootstrapServers());
    return p;
  }

  /**
   * An export of {@code topic} to {@code file} in a thread of its own, held a few records in (its
   * first poll counted, its second one waiting) until {@link #join}.
   */
  private static final class HeldExport {
    final Progress progress = Progress.quiet();
    final String hold = TestKafka.uniqueName("hold");
    final Exporter exporter;
    final Thread thread;
    volatile Throwable failure;

    HeldExport(TestKafka kafka, String topic, Path file) {
      HoldSecondPoll.HOLDS.put(hold, new CountDownLatch(1));
      exporter =
          new Exporter(
              new Exporter.Settings(heldClient(kafka, hold), topic, file, null, null, false),
              progress);
      thread =
          new Thread(
              () -> {
                try {
                  exporter.run();
                } catch (Throwable e) {
                  failure = e;
                }
              });
      thread.start();
      await().atMost(Duration.ofSeconds(30)).until(() -> progress.done() > 0);
    }

    /** Lets the export go on and waits for its end; fails the test with what failed it. */
    void join() throws InterruptedException {
      HoldSecondPoll.HOLDS.remove(hold).countDown();
      thread.join(60_000);
      assertEquals(null, failure);
    }
  }

  @Test
  void anExportStoppedBeforeItsEndIsMarkedIncompleteAndRefusedUnlessAllowed(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    String topic = publish(kafka, "export-stopped", 2);
    Path file = dir.resolve("stopped.jsonl.zst");
    HeldExport export = new HeldExport(kafka, topic, file); // returns held a few records in
    export.exporter.stop(); // what Ctrl-C or SIGTERM does
    export.join();

    ArchiveManifest manifest = ArchiveManifest.read(file).orElseThrow();
    assertFalse(manifest.complete());
    assertTrue(manifest.records() > 0 && manifest.records() < RECORDS, "" + manifest.records());
    long read = 0;
    for (ArchiveManifest.Offsets o : manifest.offsets()) {
      assertEquals(RECORDS / 2, o.end());
      read += o.to() - o.from();
    }
    assertEquals(manifest.records(), read, "every record before the offsets reached is there");
    assertTrue(
        manifest.whyIncomplete().startsWith("the export was stopped before the end, "),
        manifest.whyIncomplete());
    assertEquals(
        List.of(),
        List.of(
            Files.list(dir)
                .filter(f -> f.getFileName().toString().endsWith(".partial"))
                .toArray()));

    String target = TestKafka.uniqueName("replay-stopped");
    String b = kafka.bootstrapServers();
    TpotCli.Result refused =
        TpotCli.tpot("replay", "--bootstrap-server", b, "--topic", target, file.toString());
    assertNotEquals(0, refused.exit());
    assertTrue(
        refused
            .err()
            .contains(
                file
                    + " is incomplete: "
                    + manifest.whyIncomplete()
                    + ". Export it again, or pass --allow-incomplete to replay what it holds"),
        refused.err());
    assertEquals(0, kafka.endOffsetSum(target), "nothing sent");
    TpotCli.Result stats = TpotCli.tpot("stats", file.toString());
    assertNotEquals(0, stats.exit());
    assertTrue(stats.err().contains("pass --allow-incomplete to stats what it holds"), stats.err());

    TpotCli.Result allowed =
        TpotCli.tpot(
            "replay",
            "--bootstrap-server",
            b,
            "--topic",
            target,
            "--partitions",
            "2",
            "--allow-incomplete",
            file.toString());
    assertEquals(0, allowed.exit(), allowed.err());
    assertTrue(allowed.err().contains("WARNING " + file + " is incomplete"), allowed.err());
    assertEquals(manifest.records(), kafka.endOffsetSum(target));
    TpotCli.Result statsAllowed = TpotCli.tpot("stats", "--allow-incomplete", file.toString());
    assertEquals(0, statsAllowed.exit(), statsAllowed.err());
    assertTrue(
        statsAllowed.err().contains("tpot stats: " + manifest.records() + " events"),
        statsAllowed.err());
  }

  /**
   * An export stopped before its end whose manifest a power loss emptied (or that is garbage, or
   * gone): replay and stats cannot tell whether it is whole, so they refuse it by name, send
   * nothing and create no topic, unless --allow-incomplete.
   */
  @Test
  void aStoppedExportWhoseManifestIsEmptiedGarbageOrGoneIsRefusedAndNothingIsCreated(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    String topic = publish(kafka, "export-emptied", 2);
    Path file = dir.resolve("emptied.jsonl.zst");
    HeldExport export = new HeldExport(kafka, topic, file);
    export.exporter.stop();
    export.join();
    long records = ArchiveManifest.read(file).orElseThrow().records();
    Path manifest = ArchiveManifest.of(file);
    String b = kafka.bootstrapServers();
    String target = TestKafka.uniqueName("replay-emptied");
    for (String content : new String[] {"", "{\"manifest\":\"tpot-arch", null}) {
      if (content == null) {
        Files.delete(manifest);
      } else {
        Files.writeString(manifest, content);
      }
      TpotCli.Result refused =
          TpotCli.tpot("replay", "--bootstrap-server", b, "--topic", target, file.toString());
      assertNotEquals(0, refused.exit());
      assertTrue(
          refused.err().contains(manifest.toString())
              && refused
                  .err()
                  .contains(
                      "whether "
                          + file
                          + " is whole cannot be told; nothing was read or sent. Export it"
                          + " again, or pass --allow-incomplete to replay what it holds"),
          refused.err());
      try (Admin admin = kafka.admin()) {
        assertFalse(admin.listTopics().names().get().contains(target), "no topic created");
      }
      TpotCli.Result stats = TpotCli.tpot("stats", file.toString());
      assertNotEquals(0, stats.exit());
      assertTrue(stats.err().contains("pass --allow-incomplete to stats"), stats.err());
    }
    Path partial = Files.copy(file, dir.resolve(".emptied.jsonl.zst.partial"));
    TpotCli.Result temporary = TpotCli.tpot("stats", "--allow-incomplete", partial.toString());
    assertNotEquals(0, temporary.exit());
    assertTrue(
        temporary.err().contains(partial + " is the temporary file of an export that did not"),
        temporary.err());

    TpotCli.Result allowed =
        TpotCli.tpot(
            "replay",
            "--bootstrap-server",
            b,
            "--topic",
            target,
            "--allow-incomplete",
            file.toString());
    assertEquals(0, allowed.exit(), allowed.err());
    assertTrue(allowed.err().contains("is read as a file of unknown completeness"), allowed.err());
    assertEquals(records, kafka.endOffsetSum(target));
  }

  @Test
  void recordsDeletedByRetentionWhileExportingAreAGapTheManifestNames(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    String topic = publish(kafka, "export-gap", 1);
    Path file = dir.resolve("gap.jsonl");
    HeldExport export = new HeldExport(kafka, topic, file); // returns held a few records in
    long deletedBefore = 15_000;
    try (Admin admin = kafka.admin()) {
      admin
          .deleteRecords(
              Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(deletedBefore)))
          .all()
          .get();
    }
    export.join();

    ArchiveManifest manifest = ArchiveManifest.read(file).orElseThrow();
    assertFalse(manifest.complete());
    assertEquals(1, manifest.gaps().size(), manifest.toString());
    ArchiveManifest.Gap gap = manifest.gaps().get(0);
    assertEquals(deletedBefore, gap.to());
    assertEquals(RECORDS - (gap.to() - gap.from()), manifest.records());
    assertEquals(
        new ArchiveManifest.Offsets(0, 0, RECORDS, (long) RECORDS), manifest.offsets().get(0));
    assertTrue(
        manifest
            .whyIncomplete()
            .contains(
                String.format(
                    java.util.Locale.ROOT,
                    "partition 0 offsets %,d to %,d were deleted by retention before the export"
                        + " read them",
                    gap.from(),
                    gap.to())),
        manifest.whyIncomplete());
  }

  /**
   * {@code tpot export} of a topic whose records retention deletes while they are read exits with
   * status 4 (its archive is incomplete), so {@code export && delete-topic} keeps the data.
   */
  @Test
  void anExportThatMetRetentionGapsExitsWithStatus4(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    String topic = publish(kafka, "export-gap-exit", 1);
    String hold = TestKafka.uniqueName("hold");
    HoldSecondPoll.HOLDS.put(hold, new CountDownLatch(1));
    HoldSecondPoll.HELD.put(hold, new CountDownLatch(1));
    Path config = dir.resolve("held.properties");
    Files.writeString(
        config,
        "fetch.max.bytes=1024\nmax.partition.fetch.bytes=1024\nmax.poll.records=10\n"
            + "interceptor.classes="
            + HoldSecondPoll.class.getName()
            + "\n"
            + HoldSecondPoll.HOLD_CONFIG
            + "="
            + hold
            + "\n");
    Path file = dir.resolve("gap.jsonl");
    java.util.concurrent.CompletableFuture<TpotCli.Result> export =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () ->
                TpotCli.tpot(
                    "export",
                    "--bootstrap-server",
                    kafka.bootstrapServers(),
                    "--topic",
                    topic,
                    "--kafka-config",
                    config.toString(),
                    file.toString()));
    assertTrue(HoldSecondPoll.HELD.get(hold).await(60, TimeUnit.SECONDS), "the export started");
    try (Admin admin = kafka.admin()) {
      admin
          .deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(15_000)))
          .all()
          .get();
    }
    HoldSecondPoll.HOLDS.remove(hold).countDown();
    TpotCli.Result result = export.get(120, TimeUnit.SECONDS);

    assertEquals(4, result.exit(), result.err());
    assertTrue(result.err().contains("export: INCOMPLETE"), result.err());
    assertFalse(ArchiveManifest.read(file).orElseThrow().gaps().isEmpty());
  }

  @Test
  void aDamagedArchiveIsRefusedBeforeAnythingIsSent(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    String topic = publish(kafka, "export-damaged", 2);
    Path file = dir.resolve("damaged.jsonl.zst");
    new Exporter(
            new Exporter.Settings(client(kafka), topic, file, null, null, false), Progress.quiet())
        .run();
    assertTrue(ArchiveManifest.read(file).orElseThrow().complete());
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x40;
    Files.write(file, bytes);

    String target = TestKafka.uniqueName("replay-damaged");
    String b = kafka.bootstrapServers();
    TpotCli.Result refused =
        TpotCli.tpot("replay", "--bootstrap-server", b, "--topic", target, file.toString());
    assertNotEquals(0, refused.exit());
    assertTrue(
        refused.err().contains(file + " is damaged: its CRC-32C is ")
            && refused.err().contains("nothing was read or sent. Export it again"),
        refused.err());
    assertEquals(0, kafka.endOffsetSum(target), "nothing sent");

    // without its manifest (and allowed to read it so), zstd's own checksum finds the damage while
    // the file is read whole, before the first record is sent
    Files.delete(ArchiveManifest.of(file));
    TpotCli.Result foreign =
        TpotCli.tpot(
            "replay",
            "--bootstrap-server",
            b,
            "--topic",
            target,
            "--allow-incomplete",
            file.toString());
    assertNotEquals(0, foreign.exit(), foreign.err());
    assertEquals(0, kafka.endOffsetSum(target), "nothing sent");
  }

  @Test
  void aReplayGoesToANewTopicAndNeverIntoOneThatHoldsRecordsUnlessTold(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    String topic = publish(kafka, "export-live", 2);
    Path file = dir.resolve("week-" + topic + ".jsonl.gz");
    new Exporter(
            new Exporter.Settings(client(kafka), topic, file, null, null, false), Progress.quiet())
        .run();
    String b = kafka.bootstrapServers();

    TpotCli.Result intoLive =
        TpotCli.tpot("replay", "--bootstrap-server", b, "--topic", topic, file.toString());
    assertNotEquals(0, intoLive.exit());
    assertTrue(
        intoLive
            .err()
            .contains(
                String.format(
                    java.util.Locale.ROOT,
                    "replay: %s already holds %,d records. Replayed into a topic a live"
                        + " aggregator reads",
                    topic,
                    RECORDS)),
        intoLive.err());
    assertEquals(RECORDS, kafka.endOffsetSum(topic), "nothing added to the live topic");

    String byDefault = "tpot.replay.week-" + topic;
    TpotCli.Result first = TpotCli.tpot("replay", "--bootstrap-server", b, file.toString());
    assertEquals(0, first.exit(), first.err());
    assertTrue(
        first
            .err()
            .contains(
                "tpot aggregate --topic "
                    + byDefault
                    + " --application-id "
                    + byDefault
                    + ".aggregator --summaries-topic "
                    + byDefault
                    + ".summaries"),
        first.err());
    assertEquals(RECORDS, kafka.endOffsetSum(byDefault));
    TpotCli.Result again = TpotCli.tpot("replay", "--bootstrap-server", b, file.toString());
    assertNotEquals(0, again.exit());
    assertEquals(RECORDS, kafka.endOffsetSum(byDefault), "a second replay is not counted twice");

    TpotCli.Result appended =
        TpotCli.tpot(
            "replay", "--bootstrap-server", b, "--topic", topic, "--append", file.toString());
    assertEquals(0, appended.exit(), appended.err());
    assertEquals(2L * RECORDS, kafka.endOffsetSum(topic));
  }
}
