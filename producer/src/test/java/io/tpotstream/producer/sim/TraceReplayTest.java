package io.tpotstream.producer.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Json;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.producer.result.ResultTable;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.producer.workload.InputLength;
import io.tpotstream.producer.workload.TraceFormat;
import io.tpotstream.producer.workload.TraceReader;
import io.tpotstream.producer.workload.TraceRequest;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample traces replayed against the simulator: every request sent, request n at the trace's
 * offset n over the speed (its actual start differs from that by exactly its measured schedule lag,
 * to the ms of the events' timestamps: no bound of time on a loaded machine), the prompt the
 * simulator counted exactly the line's input length, the output exactly its output length; a
 * session's turn only after the turn before it ended; a response shorter than asked counted so.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class TraceReplayTest {
  static final Path SAMPLES = Path.of("..", "docs", "traces");
  static final String PROFILES =
      """
      {"models": {
        "model-a": {"ttft": 5, "gap": 0.5, "tokensPerChunk": {"min": 4, "max": 4}},
        "model-b": {"ttft": 5, "gap": 0.5, "tokensPerChunk": {"min": 4, "max": 4}},
        "brief": {"ttft": 5, "gap": 1, "outputTokens": {"min": 1, "max": 3}}
      }}
      """;
  static Simulator simulator;

  @TempDir Path dir;

  @BeforeAll
  static void startSimulator() {
    SimulatorConfig config = SimulatorConfig.defaults().withPort(0).withSeed(5L).withEventLoops(1);
    for (var e : Profiles.parse(PROFILES).entrySet()) {
      config = config.withProfile(e.getKey(), e.getValue());
    }
    simulator = Simulator.start(config);
  }

  @AfterAll
  static void stopSimulator() {
    simulator.close();
  }

  private static List<TraceRequest> lines(String sample) {
    Path file = SAMPLES.resolve(sample);
    List<TraceRequest> lines = new ArrayList<>();
    try (TraceReader r = TraceFormat.detect(file, sample).open(file, sample)) {
      TraceRequest t;
      while ((t = r.next()) != null) {
        lines.add(t);
      }
    }
    return lines;
  }

  private static Runs.Finished replay(TestKafka kafka, String sample, String models, double speed) {
    return replay(kafka, sample, models, speed, null);
  }

  private static Runs.Finished replay(
      TestKafka kafka, String sample, String models, double speed, String window) {
    Map<String, String> keys = new LinkedHashMap<>();
    if (window != null) {
      keys.put("trace_window", window);
    }
    keys.put("base_url", simulator.baseUrl());
    keys.put("models", models);
    keys.put("trace", SAMPLES.resolve(sample).toAbsolutePath().toString());
    keys.put("trace_speed", Double.toString(speed));
    return Runs.run(kafka, Runs.config(keys));
  }

  /** Each request's events by its number in the replay (its id's suffix). */
  private static Map<Integer, List<TokenEvent>> byNumber(Runs.Finished run) {
    Map<Integer, List<TokenEvent>> by = new HashMap<>();
    TopicReader.byRequest(run.records())
        .forEach(
            (id, events) ->
                by.put(Integer.parseInt(id.substring(id.lastIndexOf('-') + 1)), events));
    return by;
  }

  /**
   * Every line sent as request n, its start the trace's offset over the speed plus its own lag, its
   * prompt and output of the line's lengths; returns the largest lag in ms.
   */
  private static long assertReplayed(Runs.Finished run, List<TraceRequest> lines, double speed) {
    Map<Integer, List<TokenEvent>> requests = byNumber(run);
    assertEquals(lines.size(), requests.size(), "every request of the trace was sent");
    TokenEvent first = requests.get(0).get(0);
    long maxLagMs = 0;
    for (int n = 0; n < lines.size(); n++) {
      TraceRequest line = lines.get(n);
      List<TokenEvent> events = requests.get(n);
      TokenEvent start = events.get(0);
      TokenEvent end = events.get(events.size() - 1);
      assertEquals(EventType.START, start.type());
      assertEquals(EventType.END, end.type(), "request " + n + ": " + end);
      assertTrue(start.scheduleLagNs() >= 0, "lag " + start.scheduleLagNs());
      // actual − intended = lag, so the start's offset is the trace's plus the lag difference;
      // the events' ts are whole ms (floored), hence the 2 ms
      double intendedMs = (line.offsetMs() - lines.get(0).offsetMs()) / speed;
      double lagMs = (start.scheduleLagNs() - first.scheduleLagNs()) / 1e6;
      long actualMs = start.ts() - first.ts();
      assertTrue(
          Math.abs(actualMs - intendedMs - lagMs) <= 2,
          "request "
              + n
              + " started "
              + actualMs
              + " ms in, the trace says "
              + intendedMs
              + " ms, its lag "
              + lagMs
              + " ms more than the first's");
      maxLagMs = Math.max(maxLagMs, start.scheduleLagNs() / 1_000_000);
      assertEquals(line.inputTokens(), end.promptTokens(), "request " + n + ": prompt tokens");
      assertEquals(line.outputTokens(), end.completionTokens(), "request " + n + ": output");
      assertEquals(InputLength.classOf(line.inputTokens()), start.labels().get(InputLength.LABEL));
    }
    long asked = run.result().models().stream().mapToLong(ModelResult::asked).sum();
    assertEquals(lines.size(), asked);
    assertEquals(0, run.result().models().stream().mapToLong(ModelResult::endedShort).sum());
    return maxLagMs;
  }

  @Test
  void theMooncakeSampleReplaysWithItsTimingAtOneAndFourTimesItsSpeed(TestKafka kafka) {
    List<TraceRequest> all = lines("mooncake-sample.jsonl");
    assertEquals(300, all.size());
    assertEquals(0, all.get(0).offsetMs());
    for (double speed : new double[] {1, 4}) {
      // at 1x its first 10 s (a third of it: the suite's time), at 4x all of it
      List<TraceRequest> lines =
          speed == 1 ? all.stream().filter(l -> l.offsetMs() < 10_000).toList() : all;
      Runs.Finished run =
          replay(kafka, "mooncake-sample.jsonl", "model-a", speed, speed == 1 ? "0s-10s" : null);
      long maxLagMs = assertReplayed(run, lines, speed);
      ModelResult a = run.result().models().get(0);
      assertTrue(lines.size() > 50, lines.size() + " requests");
      assertEquals(lines.size(), a.completed());
      assertEquals(lines.size(), a.scheduleLag().count(), "an open loop's lag, per request");
      System.out.printf(
          "mooncake sample at %.0fx: %d requests in %s, schedule lag max %d ms%n",
          speed, lines.size(), run.result().elapsed(), maxLagMs);
    }
  }

  @Test
  void theAzureSampleReplaysWithItsTiming(TestKafka kafka) {
    List<TraceRequest> lines = lines("azure-sample.csv");
    Runs.Finished run = replay(kafka, "azure-sample.csv", "model-a", 4);
    assertReplayed(run, lines, 4);
  }

  @Test
  void theTpotSamplesSessionsGoTurnAfterTurnToTheirModels(TestKafka kafka) {
    List<TraceRequest> lines = lines("tpot-sample.jsonl");
    Runs.Finished run = replay(kafka, "tpot-sample.jsonl", "model-a,model-b", 4);
    assertReplayed(run, lines, 4);
    Map<Integer, List<TokenEvent>> requests = byNumber(run);
    Map<String, TokenEvent> lastEndOfSession = new HashMap<>();
    int laterTurns = 0;
    for (int n = 0; n < lines.size(); n++) {
      TraceRequest line = lines.get(n);
      List<TokenEvent> events = requests.get(n);
      TokenEvent start = events.get(0);
      assertEquals(line.model(), start.model(), "the line's model");
      assertEquals(line.labels().get("app"), start.labels().get("app"), "the line's labels");
      TokenEvent before = lastEndOfSession.put(line.sessionId(), events.get(events.size() - 1));
      if (before != null) {
        laterTurns++;
        assertTrue(
            start.ts() >= before.ts(),
            "turn "
                + line.turn()
                + " of "
                + line.sessionId()
                + " began before the one before ended");
      }
    }
    assertEquals(129, laterTurns);
  }

  @Test
  void aResponseShorterThanTheTraceAskedIsCountedShort(TestKafka kafka) throws Exception {
    Path trace = dir.resolve("t.jsonl");
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      text.append("{\"timestamp\": ")
          .append(i * 20)
          .append(", \"input_length\": 30, \"output_length\": 50}\n");
    }
    Files.writeString(trace, text);
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("base_url", simulator.baseUrl());
    keys.put("models", "brief");
    keys.put("trace", trace.toString());
    keys.put("ignore_eos", "true");
    ProducerConfig config = Runs.config(keys);
    Path out = dir.resolve("requests.jsonl");
    ProducerRun run =
        Producer.start(
            config,
            KafkaSettings.of(kafka.bootstrapServers())
                .withTopic(TestKafka.uniqueName("events"))
                .withSetupTimeout(Duration.ofSeconds(20)),
            new Producer.Outputs(out, GoodputLimits.NONE),
            null);
    RunResult result = run.result().join();
    ModelResult brief = result.models().get(0);
    assertEquals(5, brief.asked());
    assertEquals(5, brief.endedShort(), "the simulator stops at 3 tokens at most");
    String table = ResultTable.format(result);
    assertTrue(table.matches("(?s).*\nended short +5\n.*"), table);
    assertTrue(
        table.contains(
            "brief: 5 of 5 completed request(s) ended short of the output length the trace asked"),
        table);
    List<String> records = Files.readAllLines(out);
    assertEquals(5, records.size());
    for (String record : records) {
      var r = Json.MAPPER.readTree(record);
      assertEquals(50, r.get("askedTokens").asInt(), record);
      assertTrue(r.get("endedShort").asBoolean(), record);
      assertTrue(r.get("outputTokens").asInt() <= 3, record);
    }
  }
}
