package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.simulator.profile.ErrorRates;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class FaultInjectionTest {
  private static final String KEY = "sk-simulated-secret-1234";
  private static final Map<String, String> AUTH = Map.of("Authorization", "Bearer " + KEY);
  private static Simulator simulator;

  @BeforeAll
  static void start() {
    ModelProfile base = TestSimulators.fast();
    simulator =
        Simulator.start(
            TestSimulators.config(3L)
                .withApiKey(KEY)
                .withProfile(
                    "limited", base.withErrors(new ErrorRates(1.0, 7, 0, 0, null, 0, null)))
                .withProfile("broken", base.withErrors(new ErrorRates(0, 1, 1.0, 0, null, 0, null)))
                .withProfile("cut", base.withErrors(new ErrorRates(0, 1, 0, 1.0, 10, 0, null)))
                .withProfile(
                    "malformed", base.withErrors(new ErrorRates(0, 1, 0, 0, null, 1.0, 4))));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private static SseClient.Response chat(String body, Map<String, String> headers) {
    return SseClient.post(simulator.baseUrl() + "/v1/chat/completions", body, headers);
  }

  private static long contentChunks(SseClient.Response response) {
    return response.events().stream()
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
        .count();
  }

  @Test
  void wrongKeyGets401WithAnOpenAiErrorBodyThatDoesNotEchoTheKey() {
    SseClient.Response response =
        chat(
            "{\"model\":\"model-a\",\"stream\":true}",
            Map.of("Authorization", "Bearer sk-wrong-key-5678"));

    assertEquals(401, response.status());
    JsonNode error = response.json().path("error");
    assertEquals("invalid_api_key", error.path("code").asText());
    assertEquals("invalid_request_error", error.path("type").asText());
    assertFalse(response.body().contains("sk-wrong-key-5678"));
    assertFalse(response.body().contains(KEY));
    assertEquals(1L, simulator.truth().models().get("model-a").outcomes().get("http_401"));
  }

  @Test
  void missingKeyGets401AndTheRightKeyInEitherHeaderIsAccepted() {
    assertEquals(401, chat("{\"model\":\"model-b\"}", Map.of()).status());
    assertEquals(401, SseClient.get(simulator.baseUrl() + "/v1/models").status());
    assertEquals(200, chat("{\"model\":\"model-b\",\"max_tokens\":2}", AUTH).status());
    SseClient.Response anthropic =
        SseClient.post(
            simulator.baseUrl() + "/v1/messages",
            "{\"model\":\"model-b\",\"max_tokens\":2}",
            Map.of("x-api-key", KEY));
    assertEquals(200, anthropic.status());
    SseClient.Response anthropicWrong =
        SseClient.post(
            simulator.baseUrl() + "/v1/messages",
            "{\"model\":\"model-b\",\"max_tokens\":2}",
            Map.of("x-api-key", "nope"));
    assertEquals(401, anthropicWrong.status());
    assertEquals("authentication_error", anthropicWrong.json().path("error").path("type").asText());
  }

  @Test
  void rateLimitGets429WithRetryAfter() {
    SseClient.Response response = chat("{\"model\":\"limited\",\"stream\":true}", AUTH);

    assertEquals(429, response.status());
    assertEquals("7", response.header("Retry-After"));
    assertEquals("rate_limit_exceeded", response.json().path("error").path("code").asText());
  }

  @Test
  void serverErrorGets500() {
    SseClient.Response response = chat("{\"model\":\"broken\",\"stream\":true}", AUTH);

    assertEquals(500, response.status());
    assertEquals("server_error", response.json().path("error").path("type").asText());
  }

  @Test
  void cutClosesTheConnectionAfter10ChunksWithoutFinishOrDone() {
    SseClient.Response response =
        chat(
            "{\"model\":\"cut\",\"stream\":true,\"max_tokens\":50,"
                + "\"stream_options\":{\"include_usage\":true}}",
            Map.of("Authorization", "Bearer " + KEY, "X-Request-Id", "cut-1"));

    assertEquals(200, response.status());
    assertTrue(response.truncated());
    assertEquals(10, contentChunks(response));
    assertFalse(response.body().contains("[DONE]"));
    assertFalse(response.body().contains("finish_reason\":\""));
    assertEquals(Outcome.CUT, EndedTruth.of(simulator, "cut-1").outcome());
    assertEquals(10, EndedTruth.of(simulator, "cut-1").chunks().size());
  }

  @Test
  void malformedChunkIsOneInvalidDataLineAndTheStreamGoesOn() {
    SseClient.Response response =
        chat(
            "{\"model\":\"malformed\",\"stream\":true,\"max_tokens\":20}",
            Map.of("Authorization", "Bearer " + KEY, "X-Request-Id", "malformed-1"));

    assertEquals(200, response.status());
    List<SseClient.Event> events = response.events();
    List<Integer> invalid =
        java.util.stream.IntStream.range(0, events.size())
            .filter(i -> !events.get(i).isJson() && !events.get(i).data().equals("[DONE]"))
            .boxed()
            .toList();
    // role chunk, content chunks 0..3, then the invalid line before chunk 4
    assertEquals(List.of(5), invalid);
    assertEquals(20, contentChunks(response));
    assertEquals("[DONE]", events.get(events.size() - 1).data());
    assertEquals(1, EndedTruth.of(simulator, "malformed-1").malformedLines());
  }

  @Test
  void unknownModelGets404NamingTheServedModels() {
    SseClient.Response response = chat("{\"model\":\"gpt-nope\",\"stream\":true}", AUTH);

    assertEquals(404, response.status());
    JsonNode error = response.json().path("error");
    assertEquals("model_not_found", error.path("code").asText());
    assertTrue(error.path("message").asText().contains("model-a"));
  }

  @Test
  void badRequestsGet400() {
    assertEquals(400, chat("not json", AUTH).status());
    SseClient.Response zero = chat("{\"model\":\"model-a\",\"max_tokens\":0}", AUTH);
    assertEquals(400, zero.status());
    assertEquals("max_tokens", zero.json().path("error").path("param").asText());
    assertEquals(400, chat("{\"stream\":true}", AUTH).status());
  }

  @Test
  void unknownPathGets404() {
    SseClient.Response response =
        SseClient.post(simulator.baseUrl() + "/v1/embeddings", "{}", AUTH);
    assertEquals(404, response.status());
    assertTrue(response.json().path("error").path("message").asText().contains("/v1/embeddings"));
  }

  @Test
  void aPathAnOpenAiCompatibleServerWouldRefuseGets404() {
    for (String path :
        List.of(
            "/v2/chat/completions",
            "/api/chat/completions",
            "/v1beta/chat/completions",
            "/v2/models")) {
      SseClient.Response response =
          path.endsWith("/models")
              ? SseClient.get(simulator.baseUrl() + path)
              : SseClient.post(
                  simulator.baseUrl() + path, "{\"model\":\"model-a\",\"stream\":true}", AUTH);
      assertEquals(404, response.status(), path);
      assertTrue(
          response.json().path("error").path("message").asText().startsWith("no route for "),
          path + ": " + response.body());
    }
    SseClient.Response messages =
        SseClient.post(
            simulator.baseUrl() + "/v2/messages",
            "{\"model\":\"model-a\",\"stream\":true,\"max_tokens\":3}",
            AUTH);
    assertEquals(404, messages.status());
    assertEquals("error", messages.json().path("type").asText(), "Anthropic's error shape");
    assertEquals(
        200, chat("{\"model\":\"model-a\",\"stream\":true,\"max_tokens\":3}", AUTH).status());
  }
}
