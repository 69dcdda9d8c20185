package io.tpotstream.sink;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.jvm.JavaLauncher;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.record.FlatRecord;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sink killed abruptly, in its own JVM, then restarted: the CSV, the JSONL file and the metrics
 * topic hold each (series, window) exactly once, no duplicate and no hole.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class SinkCrashTest {
  private static final int SERIES = 3;
  private static final int WINDOWS = 20;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path dir;

  private String input;
  private String metricsTopic;
  private String group;
  private Path csv;

  /** A sink child that stops at {@code at} ({@code halt:N} or {@code hold:N}, see SinkChild). */
  private Process child(String at, Path stdout) throws IOException {
    ProcessBuilder builder =
        JavaLauncher.builder(
            List.of(),
            SinkChild.class,
            List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"),
            List.of(bootstrap, input, group, csv.toString(), metricsTopic, "2", at));
    builder.redirectError(dir.resolve(errFile(at)).toFile());
    if (stdout != null) {
      builder.redirectOutput(stdout.toFile());
    }
    return builder.start();
  }

  private String bootstrap;

  @Test
  void killedAtAnyMomentThenRestartedHoldsEachWindowExactlyOnce(TestKafka kafka) throws Exception {
    bootstrap = kafka.bootstrapServers();
    input = TestKafka.uniqueName("summaries");
    metricsTopic = TestKafka.uniqueName("metrics");
    group = TestKafka.uniqueName("sink");
    csv = dir.resolve("out/summaries.csv");
    kafka.createTopic(input, 2);
    List<WindowSummary> summaries = new ArrayList<>();
    for (int w = 0; w < WINDOWS; w++) {
      for (int s = 0; s < SERIES; s++) {
        summaries.add(TestWindows.summary("model-" + s, Map.of("concurrency", "10"), w));
      }
    }
    SinkKafkaTest.produce(kafka, input, summaries);

    // 1: halts in its third batch, after the files' fsync, before the transaction commits
    Process first = child("halt:3", dir.resolve("first.out"));
    assertTrue(first.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "first child halted");
    assertEquals(137, first.exitValue(), stderr("halt:3"));
    int rowsAfterHalt = rows().size();
    int committedAfterHalt = TopicReader.readCommitted(kafka, metricsTopic).size();
    assertTrue(
        rowsAfterHalt > committedAfterHalt,
        "the crash left rows in the CSV that were not committed: "
            + rowsAfterHalt
            + " rows, "
            + committedAfterHalt
            + " committed");
    // ...and a row torn by the crash
    Files.writeString(csv, "2026-01-01T00:01:00Z,2026-01-0", StandardOpenOption.APPEND);

    // 2: SIGKILL once it has committed one batch (held there: however fast this machine is, the
    // rest is not yet written)
    Process second = child("hold:1", null);
    CompletableFuture<String> committed =
        CompletableFuture.supplyAsync(() -> firstLineStartingWith(second, "committed"));
    assertTrue(committed.get(WAIT.toSeconds(), TimeUnit.SECONDS).startsWith("committed"));
    second.destroyForcibly();
    assertTrue(second.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertTrue(
        rows().size() < summaries.size(),
        "killed mid-stream, with " + rows().size() + " rows of " + summaries.size());

    // 3: in this JVM until every window is there
    SinkConfig config =
        SinkConfig.builder(bootstrap)
            .inputTopic(input)
            .groupId(group)
            .csv(csv)
            .metricsTopic(metricsTopic)
            .noPrometheus()
            .build();
    try (Sink sink = Sink.start(config)) {
      await().atMost(WAIT).until(() -> rows().size() == summaries.size());
      assertTrue(sink.awaitWindowEnd(TestWindows.startOf(WINDOWS), WAIT));
    }

    List<String> labels = List.of("concurrency");
    List<String> lines = Files.readAllLines(csv);
    assertEquals(String.join(",", FlatRecord.columns(labels)), lines.get(0));
    List<String> rows = lines.subList(1, lines.size());
    assertEquals(summaries.size(), rows.size());
    assertEquals(summaries.size(), new HashSet<>(rows).size(), "no duplicate row");
    assertEquals(
        summaries.stream()
            .map(s -> String.join(",", FlatRecord.of(s).cells(labels)))
            .sorted()
            .toList(),
        rows.stream().sorted().toList());

    List<String> jsonl = Files.readAllLines(dir.resolve("out/summaries.jsonl"));
    assertEquals(
        summaries.stream().map(WindowSummaryCodec::encodeToString).sorted().toList(),
        jsonl.stream().sorted().toList());

    List<ConsumerRecord<String, byte[]>> records = TopicReader.readSettled(kafka, metricsTopic);
    assertEquals(summaries.size(), records.size());
    Map<String, byte[]> byKey = new HashMap<>();
    for (ConsumerRecord<String, byte[]> record : records) {
      assertEquals(
          null,
          byKey.put(record.key() + "@" + record.timestamp(), record.value()),
          "duplicate " + record.key() + "@" + record.timestamp());
    }
    for (WindowSummary s : summaries) {
      assertArrayEquals(FlatRecord.of(s).toJson(), byKey.get(s.series() + "@" + s.windowEndMs()));
    }
  }

  private List<String> rows() throws IOException {
    List<String> lines = Files.exists(csv) ? Files.readAllLines(csv) : List.of();
    return lines.isEmpty() ? lines : lines.subList(1, lines.size());
  }

  private String stderr(String at) throws IOException {
    return Files.readString(dir.resolve(errFile(at)));
  }

  private static String errFile(String at) {
    return "child-" + at.replace(':', '-') + ".err";
  }

  private static String firstLineStartingWith(Process process, String prefix) {
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(prefix)) {
          return line;
        }
      }
      return "exited before " + prefix;
    } catch (IOException e) {
      return e.toString();
    }
  }
}
