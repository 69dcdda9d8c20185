package io.tpotstream.app.archive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.app.cli.Tpot;
import io.tpotstream.app.cli.TpotCli;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.archive.Exporter;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.jvm.JavaLauncher;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code export --follow --roll-size} writes segments, each a whole archive of the offsets it
 * holds, that together hold every record once and in order; a follow killed with SIGKILL loses only
 * its open segment, which every reader refuses by name.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ExportRollTest {
  private static final int RECORDS = 30_000;
  private static final int PARTITIONS = 3;
  private static final long T0 = System.currentTimeMillis() - 3_600_000L;
  private static final Pattern SEGMENT = Pattern.compile("run\\.\\d{5}\\.jsonl");

  /** A new topic of {@code PARTITIONS} partitions. */
  private static String topic(TestKafka kafka, String prefix) {
    String topic = TestKafka.uniqueName(prefix);
    kafka.createTopic(topic, PARTITIONS, Map.of("retention.ms", "-1"));
    return topic;
  }

  /**
   * Request starts {@code from} (inclusive) to {@code to} over the partitions of {@code topic}. The
   * tests publish in two halves, the second once the export has read the first: each half is more
   * than a segment's size, so however much one poll brings there are at least two segments.
   */
  private static void publish(TestKafka kafka, String topic, int from, int to) {
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      for (int i = from; i < to; i++) {
        String id = "req-" + i;
        TokenEvent e = TokenEvent.start(T0 + i, "run", id, "model-a", null, null, "prod-1");
        producer.send(
            new ProducerRecord<>(topic, i % PARTITIONS, e.ts(), id, TokenEventCodec.encode(e)));
      }
      producer.flush();
    }
  }

  /** The segments in {@code dir}, in their order. */
  private static List<Path> segments(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(f -> SEGMENT.matcher(f.getFileName().toString()).matches())
          .sorted()
          .toList();
    }
  }

  /**
   * Checks that each segment passes the readers' gate as complete, holds for each partition exactly
   * the offsets its manifest names, in order, and starts where the one before ended; returns the
   * records of all of them.
   */
  private static long checkSegments(List<Path> segments) throws IOException {
    Map<Integer, Long> expected = new HashMap<>(Map.of(0, 0L, 1, 0L, 2, 0L));
    long records = 0;
    for (Path segment : segments) {
      ArchiveManifest m =
          ArchiveManifest.check(
                  segment,
                  "replay",
                  false,
                  warning -> {
                    throw new AssertionError(warning);
                  })
              .orElseThrow();
      assertEquals(null, m.whyIncomplete(), segment.toString());
      assertTrue(m.complete());
      for (ArchiveManifest.Offsets o : m.offsets()) {
        assertEquals(expected.get(o.partition()), o.from(), segment + " starts where one ended");
      }
      List<String> lines = Files.readAllLines(segment);
      assertEquals(m.records(), lines.size());
      for (String line : lines) {
        JsonNode r = Json.MAPPER.readTree(line);
        int partition = r.get("partition").asInt();
        assertEquals((long) expected.get(partition), r.get("offset").asLong(), segment + line);
        expected.put(partition, r.get("offset").asLong() + 1);
      }
      for (ArchiveManifest.Offsets o : m.offsets()) {
        assertEquals(o.to(), expected.get(o.partition()), segment + " holds all of its offsets");
      }
      records += lines.size();
    }
    return records;
  }

  @Test
  void followRolledBySizeWritesWholeSegmentsThatTogetherHoldEveryRecordOnceInOrder(
      TestKafka kafka, @TempDir Path dir) throws Exception {
    String topic = topic(kafka, "export-roll");
    publish(kafka, topic, 0, RECORDS / 2);
    Path file = dir.resolve("run.jsonl");
    Properties client = new Properties();
    client.put("bootstrap.servers", kafka.bootstrapServers());
    Progress progress = Progress.quiet();
    Exporter exporter =
        new Exporter(
            new Exporter.Settings(client, topic, file, null, null, true, null, 256L * 1024, null),
            progress);
    CompletableFuture<Long> exported =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return exporter.run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    await().atMost(Duration.ofSeconds(60)).until(() -> progress.done() == RECORDS / 2);
    publish(kafka, topic, RECORDS / 2, RECORDS);
    await().atMost(Duration.ofSeconds(60)).until(() -> progress.done() == RECORDS);
    exporter.stop();
    assertEquals(RECORDS, exported.get(60, TimeUnit.SECONDS));

    List<Path> segments = segments(dir);
    // how many depends on how much each poll brings (a segment closes after the poll that took it
    // past the size): one per half at least, and each but the last at least the size
    assertTrue(segments.size() >= 2, segments.toString());
    for (Path segment : segments.subList(0, segments.size() - 1)) {
      assertTrue(Files.size(segment) >= 256L * 1024, segment + ": " + Files.size(segment));
    }
    assertEquals(segments.size(), exporter.manifests().size());
    assertEquals(RECORDS, checkSegments(segments));
    ArchiveManifest last = ArchiveManifest.read(segments.get(segments.size() - 1)).orElseThrow();
    for (ArchiveManifest.Offsets o : last.offsets()) {
      assertEquals(RECORDS / PARTITIONS, o.to());
    }
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(
          List.of(), files.filter(f -> f.getFileName().toString().endsWith(".partial")).toList());
    }
    assertTrue(Files.notExists(file), "no archive under the name given, only its segments");

    // each segment is an archive of its own: replayed one after another into one topic
    String target = TestKafka.uniqueName("replay-roll");
    for (int i = 0; i < segments.size(); i++) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "replay",
                  "-q",
                  "--bootstrap-server",
                  kafka.bootstrapServers(),
                  "--topic",
                  target,
                  "--partitions",
                  "3",
                  "--file",
                  segments.get(i).toString()));
      if (i > 0) {
        args.add("--append");
      }
      TpotCli.Result replayed = TpotCli.tpot(args);
      assertEquals(0, replayed.exit(), replayed.err());
    }
    assertEquals(RECORDS, kafka.endOffsetSum(target));
    TpotCli.Result stats = TpotCli.tpot("stats", "--format", "json", segments.get(0).toString());
    assertEquals(0, stats.exit(), stats.err());
  }

  @Test
  void aFollowKilledWithSigkillLeavesItsFinishedSegmentsWhole(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    String topic = topic(kafka, "export-roll-killed");
    publish(kafka, topic, 0, RECORDS / 2);
    Path file = dir.resolve("run.jsonl");
    Path err = dir.resolve("export.err");
    Process export =
        JavaLauncher.builder(
                List.of(),
                Tpot.class,
                List.of(),
                List.of(
                    "export",
                    "--bootstrap-server",
                    kafka.bootstrapServers(),
                    "--topic",
                    topic,
                    "--follow",
                    "--roll-size",
                    "256KB",
                    "--file",
                    file.toString()))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(err.toFile())
            .start();
    try {
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> !export.isAlive() || segments(dir).size() >= 1);
      publish(kafka, topic, RECORDS / 2, RECORDS);
      await()
          .atMost(Duration.ofSeconds(90))
          .until(() -> !export.isAlive() || segments(dir).size() >= 2);
      assertTrue(export.isAlive(), Files.readString(err));
    } finally {
      export.destroyForcibly(); // SIGKILL: no shutdown hook, the open segment is left as it is
      export.waitFor(30, TimeUnit.SECONDS);
    }

    List<Path> segments = segments(dir);
    assertTrue(segments.size() >= 2, segments.toString());
    long records = checkSegments(segments);
    assertTrue(records > 0 && records <= RECORDS, "" + records);
    Path open =
        dir.resolve(".run." + String.format("%05d", segments.size() + 1) + ".jsonl.partial");
    if (Files.exists(open)) { // unless the kill came between a segment's rename and the next one
      TpotCli.Result refused = TpotCli.tpot("stats", "--allow-incomplete", open.toString());
      assertNotEquals(0, refused.exit());
      assertTrue(
          refused.err().contains("is the temporary file of an export that did not finish"),
          refused.err());
    }
    TpotCli.Result stats = TpotCli.tpot("stats", "--format", "json", segments.get(0).toString());
    assertEquals(0, stats.exit(), stats.err());
  }
}
