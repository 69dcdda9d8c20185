package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeterminismTest {
  private static final String BODY = "{\"model\":\"model-a\",\"stream\":true,\"max_tokens\":60}";

  /** What a run produced for one request: its token texts and its intended TTFT and gaps (ns). */
  private record Run(List<String> texts, List<Long> intendedNs) {}

  private static Run run(Simulator simulator, String requestId) {
    Map<String, String> headers = requestId == null ? Map.of() : Map.of("X-Request-Id", requestId);
    SseClient.Response response =
        SseClient.post(simulator.baseUrl() + "/v1/chat/completions", BODY, headers);
    List<String> texts =
        response.events().stream()
            .filter(SseClient.Event::isJson)
            .map(e -> e.json().path("choices").path(0).path("delta").path("content").asText(""))
            .filter(text -> !text.isEmpty())
            .toList();
    String id = response.header("X-Request-Id");
    RequestTruth truth = EndedTruth.of(simulator, id);
    return new Run(texts, truth.chunks().stream().map(ChunkTruth::intendedNs).toList());
  }

  private static Simulator start(long seed) {
    return Simulator.start(TestSimulators.config(seed));
  }

  @Test
  void sameSeedAndRequestIdGiveTheSameTokenTextsAndIntendedGaps() {
    Run first;
    Run unnamedFirst;
    try (Simulator simulator = start(42)) {
      first = run(simulator, "determinism-1");
      unnamedFirst = run(simulator, null);
    }
    Run second;
    Run unnamedSecond;
    try (Simulator simulator = start(42)) {
      unnamedSecond = run(simulator, null);
      second = run(simulator, "determinism-1");
    }

    assertEquals(60, first.texts().size());
    assertEquals(60, first.intendedNs().size());
    assertEquals(first, second);
    // unnamed requests are sim-1, sim-2... in arrival order: both runs' first one is sim-1
    assertEquals(unnamedFirst, unnamedSecond);
  }

  @Test
  void anotherSeedOrRequestIdGivesOtherTextsAndGaps() {
    Run base;
    Run otherId;
    try (Simulator simulator = start(42)) {
      base = run(simulator, "determinism-2");
      otherId = run(simulator, "determinism-3");
    }
    Run otherSeed;
    try (Simulator simulator = start(43)) {
      otherSeed = run(simulator, "determinism-2");
    }

    assertNotEquals(base.texts(), otherId.texts());
    assertNotEquals(base.intendedNs(), otherId.intendedNs());
    assertNotEquals(base.texts(), otherSeed.texts());
    assertNotEquals(base.intendedNs(), otherSeed.intendedNs());
  }
}
