package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.RequestTruth;
import io.tpotstream.simulator.truth.TruthSummary;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The prefix cache through the simulator's HTTP API: prompts that share whole blocks of their
 * beginning report exactly those tokens as cached, where OpenAI and Anthropic report them, and
 * their TTFT is the profile's plus the prefill of the other tokens only.
 *
 * <p>The prompts: a shared beginning of 640 characters (160 tokens, 10 blocks of 16), then 100
 * characters of its own: 740 characters, 185 tokens, 11 whole blocks (704 characters).
 */
class PrefixCacheServingTest {
  private static final String SHARED = "s".repeat(640);
  private static final String X_TAIL = "x".repeat(100);
  private static final String Y_TAIL = "y".repeat(100);

  /** The fast test model's TTFT (0.2 ms) and a prefill of 0.5 ms a token, in ns. */
  private static final long TTFT_NS = 200_000;

  private static final long PREFILL_NS_PER_TOKEN = 500_000;

  private static Simulator simulator;

  @BeforeAll
  static void start() {
    ModelProfile cached = TestSimulators.fast().withPrefillMsPerToken(0.5);
    simulator =
        Simulator.start(
            TestSimulators.config(3L)
                .withProfile("cached-openai", cached)
                .withProfile("cached-anthropic", cached));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private static SseClient.Response post(Simulator on, String path, String id, String json) {
    return SseClient.post(on.baseUrl() + path, json, Map.of("X-Request-Id", id));
  }

  private static String openAi(String model, boolean stream, String... messages) {
    StringBuilder body =
        new StringBuilder("{\"model\":\"" + model + "\",\"max_tokens\":2,\"stream\":" + stream);
    body.append(",\"stream_options\":{\"include_usage\":true},\"messages\":[");
    for (int i = 0; i < messages.length; i++) {
      body.append(i == 0 ? "" : ",")
          .append("{\"role\":\"")
          .append(i == 0 ? "system" : "user")
          .append("\",\"content\":\"")
          .append(messages[i])
          .append("\"}");
    }
    return body.append("]}").toString();
  }

  private static String anthropic(String model, boolean stream, String system, String user) {
    return "{\"model\":\""
        + model
        + "\",\"max_tokens\":2,\"stream\":"
        + stream
        + ",\"system\":\""
        + system
        + "\",\"messages\":[{\"role\":\"user\",\"content\":\""
        + user
        + "\"}]}";
  }

  /** The usage of an OpenAI stream's usage chunk (the one before [DONE]). */
  private static JsonNode streamUsage(SseClient.Response response) {
    List<SseClient.Event> events = response.events();
    return events.get(events.size() - 2).json().path("usage");
  }

  private static long intendedTtftNs(RequestTruth truth) {
    return truth.chunks().get(0).intendedNs();
  }

  @Test
  void openAiReportsTheCachedTokensOfASharedPrefixAndPrefillsTheRest() {
    String model = "cached-openai";
    JsonNode first =
        streamUsage(
            post(simulator, "/v1/chat/completions", "o-1", openAi(model, true, SHARED, X_TAIL)));
    JsonNode second =
        streamUsage(
            post(simulator, "/v1/chat/completions", "o-2", openAi(model, true, SHARED, Y_TAIL)));
    JsonNode whole =
        post(simulator, "/v1/chat/completions", "o-3", openAi(model, false, SHARED, X_TAIL))
            .json()
            .path("usage");

    assertEquals(185, first.path("prompt_tokens").asInt());
    assertEquals(0, first.path("prompt_tokens_details").path("cached_tokens").asInt());
    assertTrue(first.path("prompt_tokens_details").path("cached_tokens").isInt());
    assertEquals(185, second.path("prompt_tokens").asInt());
    assertEquals(160, second.path("prompt_tokens_details").path("cached_tokens").asInt());
    assertEquals(185, whole.path("prompt_tokens").asInt());
    assertEquals(
        176,
        whole.path("prompt_tokens_details").path("cached_tokens").asInt(),
        "the first prompt again: its 11 whole blocks");

    RequestTruth o1 = EndedTruth.of(simulator, "o-1");
    RequestTruth o2 = EndedTruth.of(simulator, "o-2");
    assertEquals(185, o1.promptTokens());
    assertEquals(0, o1.cachedTokens());
    assertEquals(160, o2.cachedTokens());
    assertEquals(TTFT_NS + 185 * PREFILL_NS_PER_TOKEN, intendedTtftNs(o1));
    assertEquals(TTFT_NS + 25 * PREFILL_NS_PER_TOKEN, intendedTtftNs(o2));
    EndedTruth.of(simulator, "o-3");
    assertEquals(
        new PromptCache(3, 555, 336, new BigDecimal("0.6054")),
        simulator.truth().models().get(model).prefixCache());
  }

  @Test
  void anthropicReportsCacheReadInputTokensInMessageStartAndMessageDelta() {
    String model = "cached-anthropic";
    post(simulator, "/v1/messages", "a-1", anthropic(model, true, SHARED, X_TAIL));
    SseClient.Response second =
        post(simulator, "/v1/messages", "a-2", anthropic(model, true, SHARED, Y_TAIL));
    JsonNode whole =
        post(simulator, "/v1/messages", "a-3", anthropic(model, false, SHARED, X_TAIL)).json();

    JsonNode start = second.named("message_start").get(0).json().path("message").path("usage");
    assertEquals(
        Json.MAPPER
            .createObjectNode()
            .put("input_tokens", 25)
            .put("cache_creation_input_tokens", 0)
            .put("cache_read_input_tokens", 160)
            .put("output_tokens", 1),
        start,
        "input_tokens leaves the cached ones out, as Anthropic's does");
    JsonNode delta = second.named("message_delta").get(0).json().path("usage");
    assertEquals(
        Json.MAPPER
            .createObjectNode()
            .put("input_tokens", 25)
            .put("cache_creation_input_tokens", 0)
            .put("cache_read_input_tokens", 160)
            .put("output_tokens", 2),
        delta,
        "cumulative, as Anthropic sends it");
    assertEquals(9, whole.path("usage").path("input_tokens").asInt());
    assertEquals(176, whole.path("usage").path("cache_read_input_tokens").asInt());
    assertEquals(0, whole.path("usage").path("cache_creation_input_tokens").asInt());
    assertEquals(
        TTFT_NS + 25 * PREFILL_NS_PER_TOKEN, intendedTtftNs(EndedTruth.of(simulator, "a-2")));
  }

  @Test
  void withoutACacheNothingIsReportedAndTheWholePromptIsPrefilled(@TempDir Path dir)
      throws IOException {
    Path truthFile = dir.resolve("truth.jsonl");
    ModelProfile slowPrefill = TestSimulators.fast().withPrefillMsPerToken(0.5);
    try (Simulator uncached =
        Simulator.start(
            TestSimulators.config(3L)
                .withProfile("plain", slowPrefill)
                .withPrefixCacheBlocks(0)
                .withTruthFile(truthFile))) {
      for (String id : List.of("n-1", "n-2")) {
        JsonNode usage =
            streamUsage(
                post(uncached, "/v1/chat/completions", id, openAi("plain", true, SHARED, X_TAIL)));
        assertEquals(185, usage.path("prompt_tokens").asInt());
        assertFalse(usage.has("prompt_tokens_details"), usage.toString());
        RequestTruth truth = EndedTruth.of(uncached, id);
        assertNull(truth.cachedTokens());
        assertEquals(TTFT_NS + 185 * PREFILL_NS_PER_TOKEN, intendedTtftNs(truth));
      }
      JsonNode start =
          post(uncached, "/v1/messages", "n-3", anthropic("plain", true, SHARED, X_TAIL))
              .named("message_start")
              .get(0)
              .json()
              .path("message")
              .path("usage");
      assertEquals(
          Json.MAPPER.createObjectNode().put("input_tokens", 185).put("output_tokens", 1), start);
      EndedTruth.of(uncached, "n-3");
      assertNull(uncached.truth().models().get("plain").prefixCache());
      assertNull(uncached.truth().report().prefixCache());
    }
    List<String> firstChunks =
        Files.readAllLines(truthFile).stream().filter(l -> l.contains("\"seq\":0,")).toList();
    assertEquals(3, firstChunks.size());
    firstChunks.forEach(
        line -> {
          assertTrue(line.endsWith(",\"promptTokens\":185}"), line);
        });
  }

  @Test
  void theTruthFileAndTheSummarySayWhatTheCacheHeld(@TempDir Path dir) throws IOException {
    Path truthFile = dir.resolve("truth.jsonl");
    List<String> summary;
    try (Simulator cached =
        Simulator.start(
            TestSimulators.config(3L)
                .withProfile("c", TestSimulators.fast())
                .withPrefixCacheBlocks(11)
                .withTruthFile(truthFile))) {
      post(cached, "/v1/chat/completions", "t-1", openAi("c", true, SHARED, X_TAIL));
      post(cached, "/v1/chat/completions", "t-2", openAi("c", true, SHARED, Y_TAIL));
      EndedTruth.of(cached, "t-1");
      EndedTruth.of(cached, "t-2");
      assertEquals(
          Json.MAPPER
              .createObjectNode()
              .put("capacityBlocks", 11)
              .put("heldBlocks", 11)
              .put("evictedBlocks", 1),
          Json.MAPPER.readTree(cached.truth().toJson()).path("prefixCache"),
          "11 blocks, then 11 of which 10 were held: the first prompt's last block made room");
      summary = TruthSummary.lines(cached.truth().report());
    }
    List<String> firstChunks =
        Files.readAllLines(truthFile).stream().filter(l -> l.contains("\"seq\":0,")).toList();
    assertTrue(firstChunks.get(0).endsWith(",\"promptTokens\":185,\"cachedTokens\":0}"));
    assertTrue(firstChunks.get(1).endsWith(",\"promptTokens\":185,\"cachedTokens\":160}"));
    assertTrue(
        summary.contains("prefix cache, c: 43.24% of 370 prompt tokens held (160) over 2 requests"),
        String.join("\n", summary));
  }
}
