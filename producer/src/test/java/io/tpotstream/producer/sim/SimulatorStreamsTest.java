package io.tpotstream.producer.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.Outcome;
import io.tpotstream.simulator.truth.RequestTruth;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Against the simulator, every request gives exactly a start, one token event per output chunk the
 * simulator sent (its ground truth), and an end, in both dialects; injected faults land in their
 * classes with the tokens sent before them.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class SimulatorStreamsTest {
  static final String PROFILES =
      """
      {"models": {
        "steady": {"ttft": 20, "gap": 2},
        "mixed": {"ttft": 20, "gap": {"type": "lognormal", "medianMs": 1.5, "p99Ms": 6},
                  "tokensPerChunk": {"min": 1, "max": 3}, "reasoningShare": 0.3,
                  "outputTokens": {"min": 10, "max": 40}},
        "faulty": {"ttft": 20, "gap": 2,
                   "errors": {"http429": 0.2, "retryAfterSeconds": 3, "cut": 0.3, "malformed": 0.4}}
      }}
      """;
  static Simulator simulator;

  @BeforeAll
  static void startSimulator() {
    SimulatorConfig config = SimulatorConfig.defaults().withPort(0).withSeed(11L).withEventLoops(1);
    for (var e : Profiles.parse(PROFILES).entrySet()) {
      config = config.withProfile(e.getKey(), e.getValue());
    }
    simulator = Simulator.start(config);
  }

  @AfterAll
  static void stopSimulator() {
    simulator.close();
  }

  /**
   * Fixed run ids make the request ids, and so the simulator's seeded faults, the same each time.
   */
  private Runs.Finished run(TestKafka kafka, String runId, Map<String, String> extra) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("run_id", runId);
    keys.put("base_url", simulator.baseUrl());
    keys.put("api_key", "sk-sim");
    keys.put("models", "steady,mixed,faulty");
    keys.put("total_requests", "8");
    keys.put("concurrency", "4");
    keys.put("max_tokens", "30");
    keys.putAll(extra);
    return Runs.run(kafka, Runs.config(keys));
  }

  /** Checks every request against the simulator's truth; returns how many completed. */
  private static int assertMatchesTruth(Runs.Finished run, boolean perChunkTokens)
      throws Exception {
    Map<String, List<TokenEvent>> requests = TopicReader.byRequest(run.records());
    assertEquals(24, requests.size());
    int completed = 0;
    for (Map.Entry<String, List<TokenEvent>> r : requests.entrySet()) {
      List<TokenEvent> events = r.getValue();
      String model = events.get(0).model();
      assertEquals(EventType.START, events.get(0).type());
      List<TokenEvent> tokens = events.subList(1, events.size() - 1);
      tokens.forEach(t -> assertEquals(EventType.TOKEN, t.type(), r.getKey()));
      TokenEvent last = events.get(events.size() - 1);
      Optional<RequestTruth> truth = simulator.truth().awaitEnd(r.getKey(), Duration.ofSeconds(10));
      if (truth.isEmpty() || truth.get().outcome() == Outcome.HTTP_429) {
        // refused before streaming: no chunk was sent
        assertEquals("faulty", model);
        assertEquals(List.of(), tokens);
        assertEquals("http_429", last.errorClass(), last.toString());
        assertTrue(last.message().contains("Retry-After: 3"), last.message());
        continue;
      }
      List<ChunkTruth> sent = truth.get().chunks();
      assertEquals(sent.size(), tokens.size(), r.getKey() + " " + model);
      for (int i = 0; i < sent.size(); i++) {
        assertEquals(i, tokens.get(i).seq());
        assertEquals(perChunkTokens ? sent.get(i).tokens() : 1, tokens.get(i).tokens(), r.getKey());
      }
      if (truth.get().outcome() == Outcome.CUT) {
        assertEquals(EventType.ERROR, last.type(), r.getKey());
        assertEquals("truncated", last.errorClass());
      } else {
        assertEquals(Outcome.COMPLETED, truth.get().outcome());
        assertEquals(EventType.END, last.type(), r.getKey() + " " + last);
        assertEquals(truth.get().tokens(), last.completionTokens());
        int malformed = truth.get().malformedLines();
        assertEquals(malformed == 0 ? null : malformed, last.malformedChunks());
        completed++;
      }
    }
    return completed;
  }

  @Test
  void openAiEventsMatchTheChunksTheSimulatorSent(TestKafka kafka) throws Exception {
    Runs.Finished run = run(kafka, "sim-openai", Map.of());
    int completed = assertMatchesTruth(run, false);
    assertTrue(completed >= 16, "steady and mixed always complete");
    var faulty = run.result().models().get(2);
    assertTrue(faulty.failed() > 0, "the faulty profile injected failures: " + faulty.errors());
  }

  @Test
  void continuousUsageGivesTokensPerChunk(TestKafka kafka) throws Exception {
    assertMatchesTruth(run(kafka, "sim-usage", Map.of("continuous_usage", "true")), true);
  }

  @Test
  void anthropicEventsMatchTheChunksTheSimulatorSent(TestKafka kafka) throws Exception {
    assertMatchesTruth(run(kafka, "sim-anthropic", Map.of("api", "anthropic")), false);
  }
}
