package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.util.ArrayList;
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

  /**
   * Starts a simulator with {@code seed}, runs {@code requestIds} one after the other (null: no
   * {@code X-Request-Id}), and closes it.
   */
  private static List<Run> runs(long seed, String... requestIds) {
    try (Simulator simulator = Simulator.start(TestSimulators.config(seed))) {
      List<Run> runs = new ArrayList<>();
      for (String requestId : requestIds) {
        runs.add(run(simulator, requestId));
      }
      return runs;
    }
  }

  @Test
  void sameSeedAndRequestIdGiveTheSameTokenTextsAndIntendedGaps() {
    List<Run> first = runs(42, "determinism-1", null);
    List<Run> second = runs(42, null, "determinism-1");

    assertEquals(60, first.get(0).texts().size());
    assertEquals(60, first.get(0).intendedNs().size());
    assertEquals(first.get(0), second.get(1));
    // unnamed requests are sim-1, sim-2... in arrival order: both runs' first one is sim-1
    assertEquals(first.get(1), second.get(0));
  }

  @Test
  void anotherSeedOrRequestIdGivesOtherTextsAndGaps() {
    List<Run> seed42 = runs(42, "determinism-2", "determinism-3");
    Run base = seed42.get(0);
    Run otherId = seed42.get(1);
    Run otherSeed = runs(43, "determinism-2").get(0);

    assertNotEquals(base.texts(), otherId.texts());
    assertNotEquals(base.intendedNs(), otherId.intendedNs());
    assertNotEquals(base.texts(), otherSeed.texts());
    assertNotEquals(base.intendedNs(), otherSeed.intendedNs());
  }
}
