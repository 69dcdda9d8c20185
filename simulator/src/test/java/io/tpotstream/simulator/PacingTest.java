package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.FixedStall;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.ModelTruth;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gaps measured by a client (System.nanoTime when each data line arrives), compared with the
 * profiles: fidelity, not speed. A machine whose other processes leave this JVM less than 85% of a
 * core per core cannot show sub-millisecond pacing (every wake-up waits for a core); such a run is
 * aborted with the measured share, not failed and not passed.
 */
class PacingTest {
  private static Simulator simulator;

  @BeforeAll
  static void start() {
    ModelProfile fiveMs =
        ModelProfile.of(new Distribution.Constant(10), new Distribution.Constant(5));
    simulator =
        Simulator.start(
            SimulatorConfig.defaults()
                .withPort(0)
                .withSeed(2024L)
                .withProfile("constant-5ms", fiveMs)
                .withProfile(
                    "stall-at-50",
                    ModelProfile.of(new Distribution.Constant(10), new Distribution.Constant(2))
                        .withFixedStalls(List.of(new FixedStall(50, 150)))));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  @BeforeEach
  void requireAMachineThatGivesThisJvmItsCpu() {
    double lost = CpuAvailability.lostShare(Duration.ofMillis(300));
    Assumptions.assumeTrue(
        lost < 0.15,
        String.format(
            "spinning threads of this JVM (one per core) were descheduled up to %.0f%% of 300 ms: the"
                + " machine is too busy to judge pacing below a millisecond",
            lost * 100));
  }

  private static CompletableFuture<SseClient.Response> stream(
      String model, int maxTokens, String requestId) {
    return SseClient.postAsync(
        simulator.baseUrl() + "/v1/chat/completions",
        "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":" + maxTokens + "}",
        Map.of("X-Request-Id", requestId));
  }

  /** The client-side gaps between consecutive content chunks of one response, in ns. */
  private static List<Long> gapsNs(SseClient.Response response, int maxTokens) {
    List<Long> arrivals =
        response.events().stream()
            .filter(SseClient.Event::isJson)
            .filter(
                e ->
                    !e.json()
                        .path("choices")
                        .path(0)
                        .path("delta")
                        .path("content")
                        .asText("")
                        .isEmpty())
            .map(SseClient.Event::arrivalNs)
            .toList();
    assertEquals(maxTokens, arrivals.size(), response.header("X-Request-Id") + " complete");
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < arrivals.size(); i++) {
      gaps.add(arrivals.get(i) - arrivals.get(i - 1));
    }
    return gaps;
  }

  private static List<Long> streamGapsNs(String model, int maxTokens, String requestId) {
    return gapsNs(SseClient.await(stream(model, maxTokens, requestId)), maxTokens);
  }

  /** Runs {@code streams} streams at once and returns all their client-side gaps. */
  private static LatencyHistogram concurrentGaps(String model, int streams, int maxTokens) {
    List<CompletableFuture<SseClient.Response>> responses = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      responses.add(stream(model, maxTokens, model + "-pacing-" + i));
    }
    LatencyHistogram gaps = new LatencyHistogram();
    for (CompletableFuture<SseClient.Response> response : responses) {
      gapsNs(SseClient.await(response), maxTokens).forEach(gaps::recordNanos);
    }
    return gaps;
  }

  /**
   * The failure message: the client's median next to what the simulator itself recorded, so that a
   * machine too busy to give this JVM its CPU (a large pacing error) is told apart from a bug.
   */
  private static String diagnosis(String model, long clientMedianMicros) {
    ModelTruth truth = simulator.truth().models().get(model);
    return "client median gap "
        + clientMedianMicros
        + " µs; the simulator's own record for "
        + model
        + ": scheduled gaps "
        + truth.scheduledGap()
        + ", actual gaps "
        + truth.gap()
        + ", pacing error "
        + truth.pacingError();
  }

  @Test
  void modelAMedianGapOver4000ClientGapsIsWithin10PercentOf1point6Ms() {
    LatencyHistogram gaps = concurrentGaps("model-a", 10, 401);

    assertEquals(4000, gaps.count());
    long medianMicros = gaps.percentileMicros(50);
    assertTrue(Math.abs(medianMicros - 1600) <= 160, diagnosis("model-a", medianMicros));
  }

  @Test
  void fiftyConcurrentModelCStreamsAllCompleteWithAMedianGapNear4point9Ms() {
    LatencyHistogram gaps = concurrentGaps("model-c", 50, 100);

    assertEquals(50 * 99, gaps.count());
    long medianMicros = gaps.percentileMicros(50);
    assertTrue(Math.abs(medianMicros - 4900) <= 490, diagnosis("model-c", medianMicros));
  }

  @Test
  void constantFiveMsGapsArriveFiveMsApart() {
    LatencyHistogram gaps = new LatencyHistogram();
    streamGapsNs("constant-5ms", 300, "constant-1").forEach(gaps::recordNanos);

    assertEquals(299, gaps.count());
    long medianMicros = gaps.percentileMicros(50);
    assertTrue(Math.abs(medianMicros - 5000) <= 250, diagnosis("constant-5ms", medianMicros));
  }

  @Test
  void fixedStallOf150MsIsTheGapBeforeChunk50AndOnlyThere() {
    List<Long> gaps = streamGapsNs("stall-at-50", 100, "stall-1");

    // gap i is between chunk i and chunk i+1: the stall before chunk 50 is gap 49 (± pacing error)
    assertTrue(gaps.get(49) >= 149_000_000L, "gap before chunk 50: " + gaps.get(49) + " ns");
    assertTrue(gaps.get(49) < 170_000_000L, "gap before chunk 50: " + gaps.get(49) + " ns");
    long longGaps = gaps.stream().filter(gap -> gap > 50_000_000L).count();
    assertEquals(1, longGaps);
    List<ChunkTruth> sent = EndedTruth.of(simulator, "stall-1").chunks();
    assertEquals(150_000_000L, sent.get(50).dueNs() - sent.get(49).dueNs());
  }
}
