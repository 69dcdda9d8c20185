package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.simulator.pacing.LoopTimer;
import io.tpotstream.simulator.profile.IntRange;
import io.tpotstream.simulator.truth.Outcome;
import io.tpotstream.simulator.truth.RequestTruth;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OpenAiStreamingTest {
  private static Simulator simulator;

  @BeforeAll
  static void start() {
    simulator =
        Simulator.start(
            TestSimulators.config(11L)
                .withProfile("chunky", TestSimulators.fast().withTokensPerChunk(new IntRange(1, 3)))
                .withProfile("thinker", TestSimulators.fast().withReasoningShare(0.25)));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private static String url(String path) {
    return simulator.baseUrl() + path;
  }

  private static List<SseClient.Event> contentChunks(SseClient.Response response) {
    return response.events().stream()
        .filter(SseClient.Event::isJson)
        .filter(
            e ->
                e.json().path("choices").path(0).path("delta").path("content").asText("").length()
                    > 0)
        .toList();
  }

  @Test
  void streamOf200TokensGivesRoleChunk200ContentChunksFinishUsageAndDone() {
    SseClient.Response response =
        SseClient.post(
            url("/v1/chat/completions"),
            "{\"model\":\"model-a\",\"stream\":true,\"max_tokens\":200,"
                + "\"stream_options\":{\"include_usage\":true}}");

    assertEquals(200, response.status());
    assertTrue(response.header("Content-Type").startsWith("text/event-stream"));
    assertNull(response.header("Content-Encoding"));
    List<SseClient.Event> events = response.events();
    assertEquals(1 + 200 + 1 + 1 + 1, events.size());
    JsonNode role = events.get(0).json().path("choices").path(0).path("delta");
    assertEquals("assistant", role.path("role").asText());
    assertEquals("", role.path("content").asText());
    assertEquals(200, contentChunks(response).size());
    for (int i = 1; i <= 200; i++) {
      JsonNode chunk = events.get(i).json();
      assertEquals("chat.completion.chunk", chunk.path("object").asText());
      assertEquals("model-a", chunk.path("model").asText());
      assertTrue(chunk.path("choices").path(0).path("finish_reason").isNull());
    }
    JsonNode finish = events.get(201).json().path("choices").path(0);
    assertEquals("length", finish.path("finish_reason").asText());
    assertTrue(finish.path("delta").isEmpty());
    JsonNode usage = events.get(202).json();
    assertEquals(0, usage.path("choices").size());
    assertEquals(200, usage.path("usage").path("completion_tokens").asInt());
    assertEquals(
        usage.path("usage").path("prompt_tokens").asInt() + 200,
        usage.path("usage").path("total_tokens").asInt());
    assertEquals("[DONE]", events.get(203).data());
    assertTrue(
        response.body().endsWith("data: [DONE]\n\n") || response.body().endsWith("data: [DONE]\n"));
    assertFalse(response.truncated());
  }

  @Test
  void withoutIncludeUsageThereIsNoUsageChunk() {
    SseClient.Response response =
        SseClient.post(
            url("/v1/chat/completions"),
            "{\"model\":\"model-a\",\"stream\":true,\"max_tokens\":5}");

    assertEquals(1 + 5 + 1 + 1, response.events().size());
    assertFalse(response.body().contains("\"usage\""));
    assertEquals("[DONE]", response.events().get(7).data());
  }

  @Test
  void continuousUsageStatsCountTheTokensSoFarInEveryChunk() {
    SseClient.Response response =
        SseClient.post(
            url("/v1/chat/completions"),
            "{\"model\":\"chunky\",\"stream\":true,\"max_tokens\":40,\"stream_options\":"
                + "{\"include_usage\":true,\"continuous_usage_stats\":true}}");

    List<SseClient.Event> json =
        response.events().stream().filter(SseClient.Event::isJson).toList();
    assertEquals(0, json.get(0).json().path("usage").path("completion_tokens").asInt());
    int previous = 0;
    int chunksWithSeveralTokens = 0;
    List<SseClient.Event> content = contentChunks(response);
    for (SseClient.Event event : content) {
      int soFar = event.json().path("usage").path("completion_tokens").asInt();
      int tokens = soFar - previous;
      assertTrue(tokens >= 1 && tokens <= 3, "tokens in a chunk: " + tokens);
      chunksWithSeveralTokens += tokens > 1 ? 1 : 0;
      previous = soFar;
    }
    assertEquals(40, previous);
    assertTrue(chunksWithSeveralTokens > 0);
    assertEquals(
        40, json.get(json.size() - 1).json().path("usage").path("completion_tokens").asInt());
  }

  @Test
  void anyBasePathPrefixServesTheSameApi() {
    for (String path :
        List.of("/api/v1/chat/completions", "/openai/v1/chat/completions", "/chat/completions/")) {
      SseClient.Response response =
          SseClient.post(url(path), "{\"model\":\"model-b\",\"stream\":true,\"max_tokens\":3}");
      assertEquals(200, response.status(), path);
      assertEquals(3, contentChunks(response).size(), path);
    }
    JsonNode models = SseClient.get(url("/gateway/v1/models")).json();
    assertEquals(5, models.path("data").size());
  }

  @Test
  void modelsListsTheBuiltInsAndTheConfiguredProfiles() {
    JsonNode models = SseClient.get(url("/v1/models")).json();
    assertEquals("list", models.path("object").asText());
    List<String> ids = models.path("data").findValuesAsText("id");
    assertEquals(List.of("chunky", "model-a", "model-b", "model-c", "thinker"), ids);
  }

  @Test
  void maxCompletionTokensCapsTheOutputLikeMaxTokens() {
    SseClient.Response response =
        SseClient.post(
            url("/v1/chat/completions"),
            "{\"model\":\"model-c\",\"stream\":true,\"max_completion_tokens\":7}");
    assertEquals(7, contentChunks(response).size());
  }

  @Test
  void reasoningComesFirstAsReasoningContentThenContent() {
    SseClient.Response response =
        SseClient.post(
            url("/v1/chat/completions"),
            "{\"model\":\"thinker\",\"stream\":true,\"max_tokens\":20,"
                + "\"stream_options\":{\"include_usage\":true}}");
    List<String> kinds =
        response.events().stream()
            .filter(SseClient.Event::isJson)
            .map(e -> e.json().path("choices").path(0).path("delta"))
            .filter(d -> d.has("reasoning_content") || (d.has("content") && !d.has("role")))
            .map(d -> d.has("reasoning_content") ? "r" : "c")
            .toList();
    assertEquals("rrrrrccccccccccccccc", String.join("", kinds), response.body());
    JsonNode usage = response.events().get(response.events().size() - 2).json().path("usage");
    assertEquals(20, usage.path("completion_tokens").asInt());
    assertEquals(5, usage.path("completion_tokens_details").path("reasoning_tokens").asInt());
  }

  @Test
  void nonStreamingAnswersOneCompletionWithUsage() {
    SseClient.Response response =
        SseClient.post(url("/v1/chat/completions"), "{\"model\":\"thinker\",\"max_tokens\":8}");
    assertEquals(200, response.status());
    JsonNode body = response.json();
    assertEquals("chat.completion", body.path("object").asText());
    JsonNode message = body.path("choices").path(0).path("message");
    assertEquals("assistant", message.path("role").asText());
    assertFalse(message.path("content").asText().isEmpty());
    assertFalse(message.path("reasoning_content").asText().isEmpty());
    assertEquals("length", body.path("choices").path(0).path("finish_reason").asText());
    assertEquals(8, body.path("usage").path("completion_tokens").asInt());
  }

  @Test
  void requestIdHeaderKeysTheGroundTruthOfEveryChunk() {
    SseClient.Response response =
        SseClient.post(
            url("/v1/chat/completions"),
            "{\"model\":\"model-a\",\"stream\":true,\"max_tokens\":30}",
            Map.of("X-Request-Id", "openai-truth-1"));

    assertEquals("openai-truth-1", response.header("X-Request-Id"));
    RequestTruth truth = EndedTruth.of(simulator, "openai-truth-1");
    assertEquals("model-a", truth.model());
    assertEquals(Outcome.COMPLETED, truth.outcome());
    assertEquals(30, truth.chunks().size());
    assertEquals(30, truth.tokens());
    for (int seq = 0; seq < 30; seq++) {
      assertEquals(seq, truth.chunks().get(seq).seq());
      // the loop's timer is never starts a chunk more than MAX_EARLY_NS before it is due
      assertTrue(truth.chunks().get(seq).pacingErrorNs() >= -LoopTimer.MAX_EARLY_NS);
    }
    assertEquals(29, truth.gapsNs().length);
  }
}
