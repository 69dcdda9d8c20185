package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.plan.Planner;
import io.tpotstream.simulator.plan.ResponsePlan;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.FixedStall;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pacing rule, from the simulator's own record: each chunk is due its intended gap after the
 * previous chunk was actually sent (so a late chunk delays the rest instead of making them catch up
 * in a burst), the intended gaps are exactly the profile's draws, and no chunk goes out more than
 * 0.2 ms (the timer's lead and batch) before it is due. These hold exactly on any machine, however
 * busy; how close the actual gaps come to the profile is {@code ColdStartFidelityTest}'s and the
 * benchmarks' business.
 */
class PacingTest {
  private static final long SEED = 2024L;
  private static final ModelProfile STALL_AT_50 =
      ModelProfile.of(new Distribution.Constant(10), new Distribution.Constant(2))
          .withFixedStalls(List.of(new FixedStall(50, 150)));
  private static final ModelProfile CATCH_UP =
      ModelProfile.of(new Distribution.Constant(5), new Distribution.Constant(1)).withCatchUp(true);

  private static Simulator simulator;

  @BeforeAll
  static void start() {
    simulator =
        Simulator.start(
            TestSimulators.config(SEED)
                .withProfile("stall-at-50", STALL_AT_50)
                .withProfile("catch-up", CATCH_UP));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private static CompletableFuture<SseClient.Response> stream(
      String model, int maxTokens, String requestId) {
    return SseClient.postAsync(
        simulator.baseUrl() + "/v1/chat/completions",
        "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":" + maxTokens + "}",
        Map.of("X-Request-Id", requestId));
  }

  /** Streams {@code ids} at once and returns their truth once each has ended. */
  private static List<RequestTruth> streamAll(String model, int maxTokens, List<String> ids) {
    List<CompletableFuture<SseClient.Response>> responses = new ArrayList<>();
    ids.forEach(id -> responses.add(stream(model, maxTokens, id)));
    responses.forEach(SseClient::await);
    return ids.stream().map(id -> EndedTruth.of(simulator, id)).toList();
  }

  private static void assertNeverMoreThanTheLeadEarly(RequestTruth truth) {
    for (ChunkTruth chunk : truth.chunks()) {
      assertTrue(
          chunk.pacingErrorNs() >= -LoopTimer.MAX_EARLY_NS,
          truth.requestId() + " chunk " + chunk.seq() + " early by " + -chunk.pacingErrorNs());
    }
  }

  @Test
  void eachModelAChunkIsDueItsDrawnGapAfterThePreviousChunkWasActuallySent() {
    List<String> ids = List.of("rule-1", "rule-2", "rule-3", "rule-4");
    List<RequestTruth> truths = streamAll("model-a", 200, ids);

    ModelProfile modelA = Profiles.builtIns().get("model-a");
    for (RequestTruth truth : truths) {
      // no messages: a prompt of 1 token (the least), none of it cached, prefilled after the TTFT
      ResponsePlan plan =
          Planner.plan(modelA, SEED, "model-a", truth.requestId(), 200, 1)
              .withPrompt(0, modelA.prefillNs(1));
      List<ChunkTruth> chunks = truth.chunks();
      assertEquals(200, chunks.size());
      assertEquals(truth.arrivalNs() + plan.waitNs(0), chunks.get(0).dueNs());
      for (int seq = 0; seq < 200; seq++) {
        ChunkTruth chunk = chunks.get(seq);
        assertEquals(plan.waitNs(seq), chunk.intendedNs(), truth.requestId() + " seq " + seq);
        if (seq > 0) {
          assertEquals(chunks.get(seq - 1).sentNs() + plan.waitNs(seq), chunk.dueNs());
          // so the actual gap is the drawn gap plus this chunk's own pacing error, nothing else
          assertEquals(
              plan.waitNs(seq) + chunk.pacingErrorNs(),
              chunk.sentNs() - chunks.get(seq - 1).sentNs());
        }
      }
      assertNeverMoreThanTheLeadEarly(truth);
    }
  }

  /**
   * Streams one request of {@code model} with {@code max_tokens} 100 and returns its truth, checked
   * to hold exactly 100 chunks, none sent more than the lead early.
   */
  private static RequestTruth streamHundred(String model, String requestId) {
    RequestTruth truth = streamAll(model, 100, List.of(requestId)).get(0);
    assertEquals(100, truth.chunks().size());
    assertNeverMoreThanTheLeadEarly(truth);
    return truth;
  }

  @Test
  void aCatchUpProfileKeepsEveryChunkOnTheScheduleFixedAtArrival() {
    RequestTruth truth = streamHundred("catch-up", "catch-up-1");

    List<ChunkTruth> chunks = truth.chunks();
    // the TTFT of 5 ms and the prefill of the 1-token prompt (10 µs)
    assertEquals(truth.arrivalNs() + 5_000_000L + 10_000L, chunks.get(0).dueNs());
    for (int seq = 1; seq < 100; seq++) {
      assertEquals(chunks.get(seq - 1).dueNs() + 1_000_000L, chunks.get(seq).dueNs());
    }
  }

  @Test
  void fixedStallOf150MsIsTheIntendedGapBeforeChunk50AndOnlyThere() {
    List<ChunkTruth> chunks = streamHundred("stall-at-50", "stall-1").chunks();

    for (int seq = 1; seq < 100; seq++) {
      assertEquals(seq == 50 ? 150_000_000L : 2_000_000L, chunks.get(seq).intendedNs());
    }
    // the gap before chunk 50 is at least the stall, less the most a chunk may go out early
    long stallGapNs = chunks.get(50).sentNs() - chunks.get(49).sentNs();
    assertTrue(stallGapNs >= 150_000_000L - LoopTimer.MAX_EARLY_NS, "stall gap " + stallGapNs);
  }
}
