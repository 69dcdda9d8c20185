package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.engine.RequestMetrics;
import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The simulator playing an inference engine: {@code GET /metrics} in vLLM's names and buckets, and
 * vLLM's per-request metrics, both the engine's view (without the slow gateway's delay) built from
 * the simulator's own record of its sends. Values are checked exactly against that record; the
 * bucket a duration falls in only where the profile puts it far from a bound.
 */
class EngineViewTest {
  /** 1 ms TTFT, 15 ms gaps, behind a gateway that holds each chunk 50 ms. */
  private static final ModelProfile GATEWAY =
      ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(15))
          .withGatewayDelayMs(50)
          .withPerRequestMetrics(true);

  private static final long GATEWAY_NS = 50_000_000L;

  /** 1 ms TTFT, 5 ms gaps, per-request metrics, no gateway. */
  private static final ModelProfile REPORTING =
      ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(5))
          .withPerRequestMetrics(true);

  /** The prefix cache's size here: a 2-block prompt holds 2/64 of it. */
  private static final int CACHE_BLOCKS = 64;

  private static Simulator simulator;

  @BeforeAll
  static void start() {
    simulator =
        Simulator.start(
            TestSimulators.config(53L)
                .withPrefixCacheBlocks(CACHE_BLOCKS)
                .withProfile("gateway", GATEWAY)
                .withProfile("reporting", REPORTING)
                .withProfile("quiet", TestSimulators.fast())
                .withProfile("cached", TestSimulators.fast()));
    // one stream through the whole path first, so that no measured chunk waits for class loading
    post("/v1/chat/completions", "first", chat("quiet", 3, true, true));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private static String chat(String model, int maxTokens, boolean stream, boolean usage) {
    return "{\"model\":\""
        + model
        + "\",\"stream\":"
        + stream
        + ",\"max_tokens\":"
        + maxTokens
        + ",\"stream_options\":{\"include_usage\":"
        + usage
        + "}}";
  }

  private static SseClient.Response post(String path, String id, String body) {
    return SseClient.post(simulator.baseUrl() + path, body, Map.of("X-Request-Id", id));
  }

  private static PrometheusText scrape() {
    SseClient.Response response = SseClient.get(simulator.baseUrl() + "/metrics");
    assertEquals(200, response.status());
    assertEquals("text/plain; version=0.0.4; charset=utf-8", response.header("Content-Type"));
    return PrometheusText.parse(response.body());
  }

  private static double seconds(long ns) {
    return BigDecimal.valueOf(ns, 9).doubleValue();
  }

  /** The {@code "metrics"} object of the last JSON event that has one. */
  private static JsonNode metricsOf(SseClient.Response response) {
    List<JsonNode> found =
        response.events().stream()
            .filter(SseClient.Event::isJson)
            .map(SseClient.Event::json)
            .filter(json -> json.has("metrics"))
            .toList();
    assertEquals(1, found.size(), "one event carries the metrics: " + response.body());
    return found.get(0).get("metrics");
  }

  private static JsonNode json(String text) {
    try {
      return Json.MAPPER.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(text, e);
    }
  }

  private static List<String> names(JsonNode object) {
    List<String> names = new ArrayList<>();
    Iterator<String> it = object.fieldNames();
    it.forEachRemaining(names::add);
    return names;
  }

  /**
   * {@code family}'s series of {@code model} holds exactly {@code valuesNs}: each cumulative bucket
   * counts the values up to its bound, {@code _count} all of them, {@code _sum} their total.
   */
  private static void assertHistogramHolds(
      PrometheusText scraped, String family, String model, List<Long> valuesNs) {
    int buckets = 0;
    for (PrometheusText.Sample bucket : scraped.samples()) {
      if (bucket.name().equals(family + "_bucket")
          && model.equals(bucket.labels().get("model_name"))) {
        String le = bucket.labels().get("le");
        long boundNs =
            le.equals("+Inf")
                ? Long.MAX_VALUE
                : new BigDecimal(le).movePointRight(9).longValueExact();
        long expected = valuesNs.stream().filter(ns -> ns <= boundNs).count();
        assertEquals(expected, bucket.value(), family + " le=" + le + " of " + valuesNs);
        buckets++;
      }
    }
    assertTrue(buckets > 1, "buckets of " + family);
    assertEquals(valuesNs.size(), scraped.value(family + "_count", model));
    long sumNs = valuesNs.stream().mapToLong(Long::longValue).sum();
    assertEquals(seconds(sumNs), scraped.value(family + "_sum", model));
  }

  @Test
  void aSlowGatewayLengthensTheClientsTtftWhileTheEngineCountsItsOwnTtftAndEveryGap() {
    int requests = 4;
    int chunks = 10;
    List<CompletableFuture<SseClient.Response>> responses = new ArrayList<>();
    long[] startNs = new long[requests];
    for (int i = 0; i < requests; i++) {
      startNs[i] = System.nanoTime();
      responses.add(
          SseClient.postAsync(
              simulator.baseUrl() + "/v1/chat/completions",
              chat("gateway", chunks, true, true),
              Map.of("X-Request-Id", "gw-" + i)));
    }
    List<Long> engineTtftsNs = new ArrayList<>();
    List<Long> gapsNs = new ArrayList<>();
    List<Long> e2esNs = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      SseClient.Response response = SseClient.await(responses.get(i));
      RequestTruth truth = EndedTruth.of(simulator, "gw-" + i);
      List<ChunkTruth> sent = truth.chunks();
      assertEquals(chunks, sent.size());
      assertEquals(GATEWAY_NS, truth.gatewayDelayNs());
      ChunkTruth first = sent.get(0);
      ChunkTruth last = sent.get(chunks - 1);
      // the client waits for the gateway: its first chunk is due 1 ms + 10 µs of prefill + 50 ms
      // after arrival, and no chunk goes out more than the timer's lead early
      SseClient.Event firstContent =
          response.events().stream()
              .filter(SseClient.Event::isJson)
              .filter(e -> e.json().path("choices").path(0).path("delta").has("content"))
              .filter(e -> !e.json().path("choices").path(0).path("delta").has("role"))
              .findFirst()
              .orElseThrow();
      long earliestNs = 51_010_000L - LoopTimer.MAX_EARLY_NS;
      long clientTtftNs = firstContent.arrivalNs() - startNs[i];
      assertTrue(clientTtftNs >= earliestNs, "client " + clientTtftNs);
      assertTrue(first.sentNs() - truth.arrivalNs() >= earliestNs, "socket " + first);
      long engineTtftNs = first.sentNs() - GATEWAY_NS - truth.arrivalNs();
      engineTtftsNs.add(engineTtftNs);
      for (long gapNs : truth.gapsNs()) {
        gapsNs.add(gapNs);
      }
      e2esNs.add(last.sentNs() - GATEWAY_NS - truth.arrivalNs());

      // the per-request metrics: the engine's TTFT, and its last chunk at its due instant
      JsonNode metrics = metricsOf(response);
      assertTrue(
          response.events().get(response.events().size() - 2).json().has("metrics"),
          "the usage chunk, the last before [DONE], carries them");
      assertEquals(
          List.of(
              "time_to_first_token_ms",
              "generation_time_ms",
              "queue_time_ms",
              "mean_itl_ms",
              "tokens_per_second"),
          names(metrics));
      RequestMetrics expected =
          new RequestMetrics(engineTtftNs, last.dueNs() - first.sentNs(), 0, chunks, chunks);
      assertEquals(json(expected.json()), metrics);
      // no chunk goes out more than 0.2 ms early: the mean gap is at least 14.8 ms
      double meanItlMs = metrics.get("mean_itl_ms").asDouble();
      assertTrue(meanItlMs >= 14.8, "mean ITL " + meanItlMs);
      assertEquals(0, metrics.get("queue_time_ms").asInt());
    }

    // each histogram holds exactly the engine's instants of the simulator's record: on a quiet
    // machine every 15 ms gap in (0.01, 0.025] and every engine TTFT (1 ms) in le=0.04, below
    // the client's 51 ms; on a busy one wherever its pacing error put them, never below 0.01
    PrometheusText scraped = scrape();
    String itl = "vllm:inter_token_latency_seconds";
    assertEquals(requests * (chunks - 1), scraped.value(itl + "_count", "gateway"));
    assertEquals(0, scraped.value(itl + "_bucket", "gateway", "le", "0.01"));
    assertHistogramHolds(scraped, itl, "gateway", gapsNs);
    String ttft = "vllm:time_to_first_token_seconds";
    assertEquals(requests, scraped.value(ttft + "_count", "gateway"));
    assertHistogramHolds(scraped, ttft, "gateway", engineTtftsNs);
    String e2e = "vllm:e2e_request_latency_seconds";
    assertHistogramHolds(scraped, e2e, "gateway", e2esNs);
    String queue = "vllm:request_queue_time_seconds";
    assertEquals(requests, scraped.value(queue + "_bucket", "gateway", "le", "0.3"));
    assertEquals(0, scraped.value(queue + "_sum", "gateway"));

    String success = "vllm:request_success_total";
    assertEquals(requests, scraped.value(success, "gateway", "finished_reason", "length"));
    assertEquals(0, scraped.value(success, "gateway", "finished_reason", "stop"));
    assertEquals(0, scraped.value(success, "gateway", "finished_reason", "abort"));
    assertEquals(requests * chunks, scraped.value("vllm:generation_tokens_total", "gateway"));
    // each prompt is 1 token (no messages), looked up in the cache and not found
    assertEquals(requests, scraped.value("vllm:prompt_tokens_total", "gateway"));
    assertEquals(requests, scraped.value("vllm:prefix_cache_queries_total", "gateway"));
    assertEquals(0, scraped.value("vllm:prefix_cache_hits_total", "gateway"));
    assertEquals(0, scraped.value("vllm:num_requests_running", "gateway"));
    assertEquals(0, scraped.value("vllm:num_requests_waiting", "gateway"));

    // the ground truth stays the client's view: its TTFT has the gateway in it
    JsonNode truth = SseClient.get(simulator.baseUrl() + "/truth").json();
    JsonNode ttftTruth = truth.path("models").path("gateway").path("ttft");
    assertEquals(requests, ttftTruth.path("count").asInt());
    assertTrue(ttftTruth.path("minMs").asDouble() >= 50, ttftTruth.toString());
  }

  @Test
  void perRequestMetricsRideOnTheFinishChunkWithoutUsageAndInANonStreamedBody() {
    SseClient.Response noUsage =
        post("/v1/chat/completions", "rep-1", chat("reporting", 3, true, false));
    List<SseClient.Event> events = noUsage.events();
    JsonNode finish = events.get(events.size() - 2).json();
    assertEquals("length", finish.path("choices").path(0).path("finish_reason").asText());
    assertTrue(finish.has("metrics"), finish.toString());
    assertEquals(metricsOf(noUsage), finish.get("metrics"));
    assertEquals("[DONE]", events.get(events.size() - 1).data());
    assertTrue(metricsOf(noUsage).has("mean_itl_ms"));

    // one chunk: no gap to average, no generation time to rate
    JsonNode single =
        metricsOf(post("/v1/chat/completions", "rep-2", chat("reporting", 1, true, true)));
    assertEquals(
        List.of("time_to_first_token_ms", "generation_time_ms", "queue_time_ms"), names(single));
    assertEquals(0, single.get("generation_time_ms").asInt());

    // not streamed: the engine's instants are the plan's, 1 ms + 10 µs of prefill, then 4 x 5 ms
    JsonNode whole =
        post("/v1/chat/completions", "rep-3", chat("reporting", 5, false, false)).json();
    assertEquals(
        json(
            "{\"time_to_first_token_ms\":1.01,\"generation_time_ms\":20,\"queue_time_ms\":0,"
                + "\"mean_itl_ms\":5,\"tokens_per_second\":250}"),
        whole.get("metrics"));

    // OpenAI's chat completions only, and only when the profile asks
    SseClient.Response anthropic =
        post(
            "/v1/messages",
            "rep-4",
            "{\"model\":\"reporting\",\"stream\":true,\"max_tokens\":3,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    assertFalse(anthropic.body().contains("\"metrics\""), anthropic.body());
    SseClient.Response quiet = post("/v1/chat/completions", "rep-5", chat("quiet", 3, true, true));
    assertFalse(quiet.body().contains("\"metrics\""), quiet.body());
    for (String id : List.of("rep-1", "rep-2", "rep-3", "rep-4")) {
      EndedTruth.of(simulator, id);
    }

    // the non-streamed answer's 4 planned gaps count as the streams' 2 + 0 + 2 do
    PrometheusText scraped = scrape();
    assertEquals(4, scraped.value("vllm:time_to_first_token_seconds_count", "reporting"));
    assertEquals(
        2 + 0 + 4 + 2, scraped.value("vllm:inter_token_latency_seconds_count", "reporting"));
    assertEquals(3 + 1 + 5 + 3, scraped.value("vllm:generation_tokens_total", "reporting"));
    assertEquals(
        4, scraped.value("vllm:request_success_total", "reporting", "finished_reason", "length"));
  }

  @Test
  void thePrefixCacheCountersAreInTokensAndItsUsageIsTheShareOfBlocksHeld() {
    // 128 characters: a prompt of 32 tokens, two whole blocks of 16
    String body =
        "{\"model\":\"cached\",\"stream\":true,\"max_tokens\":2,"
            + "\"messages\":[{\"role\":\"user\",\"content\":\""
            + "c".repeat(128)
            + "\"}]}";
    post("/v1/chat/completions", "cache-1", body);
    post("/v1/chat/completions", "cache-2", body);
    EndedTruth.of(simulator, "cache-1");
    EndedTruth.of(simulator, "cache-2");

    PrometheusText scraped = scrape();
    assertEquals(64, scraped.value("vllm:prefix_cache_queries_total", "cached"));
    assertEquals(32, scraped.value("vllm:prefix_cache_hits_total", "cached"));
    assertEquals(64, scraped.value("vllm:prompt_tokens_total", "cached"));
    // the other tests' prompts are shorter than a block: these two blocks are all it holds
    assertEquals(2.0 / CACHE_BLOCKS, scraped.value("vllm:kv_cache_usage_perc", "cached"));
  }
}
