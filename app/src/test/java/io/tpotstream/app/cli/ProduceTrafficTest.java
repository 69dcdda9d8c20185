package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.producer.traffic.TraceSchedule;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traffic shapes, SLOs and per-request records through {@code tpot produce} against the simulator
 * and the test broker, checked against the events themselves ({@code export}, then {@code stats}).
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ProduceTrafficTest {
  static Simulator simulator;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    simulator =
        Simulator.start(SimulatorConfig.defaults().withPort(0).withSeed(5L).withEventLoops(1));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  /**
   * {@code tpot produce} of {@code model} on the simulator to {@code topic}, 3 warm-up requests, no
   * progress lines, then {@code more}.
   */
  private static TpotCli.Result produce(
      TestKafka kafka, String topic, String model, String... more) {
    return tpot(
        List.of(
            "produce",
            "--base-url",
            simulator.baseUrl(),
            "--models",
            model,
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            topic,
            "--warmup",
            "3req",
            "--progress-interval",
            "0"),
        more);
  }

  private Path export(TestKafka kafka, String topic) {
    Path file = dir.resolve(topic + ".jsonl");
    TpotCli.Result r =
        tpot(
            "export",
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            topic,
            "--out",
            file.toString());
    assertEquals(0, r.exit(), r.err());
    return file;
  }

  @Test
  void aSweepWithAnImpossibleSloExits3AndItsRecordsAgreeWithTheEvents(TestKafka kafka)
      throws Exception {
    String topic = TestKafka.uniqueName("sweep");
    Path live = dir.resolve("live-requests.jsonl");
    TpotCli.Result r =
        produce(
            kafka,
            topic,
            "model-a",
            "--total-requests",
            "4",
            "--max-tokens",
            "20",
            "--sweep",
            "concurrency=1,4",
            "--slo",
            "tpot_max=1us,error_rate=50%",
            "--requests-out",
            live.toString());
    assertEquals(3, r.exit(), r.out() + r.err());
    List<String> lines = r.out().lines().toList();
    String verdict = lines.get(lines.size() - 1);
    assertTrue(
        verdict.matches(
            "SLO failed: tpot_max [0-9.]+ ms > 0\\.001 ms \\(model-a\\{stage=concurrency-1}\\),"
                + " tpot_max [0-9.]+ ms > 0\\.001 ms \\(model-a\\{stage=concurrency-4}\\)"),
        verdict);
    assertTrue(
        lines.get(0).startsWith("TPOT per stage in ms, one row per stage and model"), r.out());
    assertTrue(
        lines.get(2).matches("concurrency-1\\s+model-a\\s+76\\s+.*\\s+4\\s+0\\s+0\\.00%"), r.out());
    assertTrue(
        lines.get(3).matches("concurrency-4\\s+model-a\\s+76\\s+.*\\s+4\\s+0\\s+0\\.00%"), r.out());

    List<String> liveLines = Files.readAllLines(live);
    assertEquals(8, liveLines.size(), "one line per request");

    Path events = export(kafka, topic);
    Path offline = dir.resolve("offline-requests.jsonl");
    TpotCli.Result stats =
        tpot(
            "stats",
            events.toString(),
            "--group-by",
            "stage",
            "--format",
            "json",
            "--requests-out",
            offline.toString());
    assertEquals(0, stats.exit(), stats.err());
    assertEquals(
        new HashSet<>(liveLines),
        new HashSet<>(Files.readAllLines(offline)),
        "the producer's records are the records of its events");

    Map<String, Long> completed = new TreeMap<>();
    for (String line : stats.out().lines().toList()) {
      JsonNode s = Json.MAPPER.readTree(line);
      completed.merge(
          s.path("series").asText(), s.path("requests").path("completed").asLong(), Long::sum);
    }
    assertEquals(
        Map.of("model-a{stage=concurrency-1}", 4L, "model-a{stage=concurrency-4}", 4L), completed);
    JsonNode first = Json.MAPPER.readTree(liveLines.get(0));
    assertEquals("concurrency-1", first.path("labels").path("stage").asText());
    assertEquals("1", first.path("labels").path("concurrency").asText());
  }

  @Test
  void aTraceSliceReplaysFromTheFlagsAndABadLineStopsItBeforeAnyRequest(TestKafka kafka)
      throws Exception {
    // a path from the working directory, as --trace takes it
    Path sample = Path.of("..", "docs", "traces", "azure-sample.csv");
    long inWindow = TraceSchedule.of(sample.toAbsolutePath(), null, null, "2s-8s").requests();
    Path records = dir.resolve("trace-requests.jsonl");
    TpotCli.Result r =
        produce(
            kafka,
            TestKafka.uniqueName("trace"),
            "model-a",
            "--trace",
            sample.toString(),
            "--trace-speed",
            "4",
            "--trace-window",
            "2s-8s",
            "--requests-out",
            records.toString());
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(r.out().matches("(?s).*\\nrequests +" + inWindow + "\\n.*"), r.out());
    assertTrue(r.out().matches("(?s).*\\nended short +0\\n.*"), r.out());
    List<String> lines = Files.readAllLines(records);
    assertEquals(inWindow, lines.size(), "the warm-up's requests are not records");
    for (String line : lines) {
      JsonNode record = Json.MAPPER.readTree(line);
      assertEquals(record.path("askedTokens").asInt(), record.path("outputTokens").asInt(), line);
      assertTrue(record.has("scheduleLagMs"), line);
    }

    Path bad = dir.resolve("bad.jsonl");
    Files.writeString(
        bad,
        "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 2}\n"
            + "{\"timestamp\": 1, \"input_length\": 5, \"output_length\": 2, \"hash_ids\": [1, 2]}\n");
    TpotCli.Result refused =
        produce(kafka, TestKafka.uniqueName("trace"), "model-a", "--trace", bad.toString());
    assertEquals(2, refused.exit(), refused.out() + refused.err());
    assertTrue(
        refused
            .err()
            .contains(
                "config key 'trace': "
                    + bad.toAbsolutePath()
                    + " line 2: hash_ids has 2 ids, more than 1 (one per block of 512 tokens of"
                    + " its 5 input tokens)"),
        refused.err());
  }

  @Test
  void aDatasetRunWithAnEasySloExits0AndLabelsTheInputLength(TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("dataset");
    TpotCli.Result r =
        produce(
            kafka,
            topic,
            "model-b",
            "--total-requests",
            "6",
            "--concurrency",
            "2",
            "--dataset",
            "sample",
            "--max-tokens",
            "12",
            "--slo",
            "tpot_p99=10s,error_rate=100%",
            "--goodput",
            "ttft=60s");
    assertEquals(0, r.exit(), r.out() + r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(
        "SLO met: tpot_p99 <= 10000 ms, error_rate <= 100% (1 series, whole run); goodput 100%",
        lines.get(lines.size() - 1));
    Path events = export(kafka, topic);
    Set<String> classes = new HashSet<>();
    for (String line : Files.readAllLines(events)) {
      JsonNode value = Json.MAPPER.readTree(line).path("value");
      // the warm-up's requests (marked, left out of every statistic) take prompts of their own
      if (value.path("type").asText().equals("start") && !value.path("warmup").asBoolean()) {
        classes.add(value.path("labels").path("input_len").asText());
      }
    }
    // the sample's first six prompts are short
    assertEquals(Set.of("0-127"), classes);
  }
}
