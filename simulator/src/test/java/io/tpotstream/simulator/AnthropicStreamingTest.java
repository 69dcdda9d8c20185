package io.tpotstream.simulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class AnthropicStreamingTest {
  private static Simulator simulator;

  @BeforeAll
  static void start() {
    simulator =
        Simulator.start(
            TestSimulators.config(5L)
                .withProfile("thinker", TestSimulators.fast().withReasoningShare(0.2)));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private static SseClient.Response post(String path, String json) {
    return SseClient.post(simulator.baseUrl() + path, json);
  }

  /** The event names, with runs of content_block_delta collapsed to "delta×n". */
  private static List<String> shape(SseClient.Response response) {
    List<String> shape = new ArrayList<>();
    int deltas = 0;
    for (SseClient.Event event : response.events()) {
      if (event.name().equals("content_block_delta")
          && !event.json().path("delta").path("type").asText().equals("signature_delta")) {
        deltas++;
        continue;
      }
      if (deltas > 0) {
        shape.add("delta×" + deltas);
        deltas = 0;
      }
      shape.add(event.name());
    }
    return shape;
  }

  @Test
  void maxTokens50GivesTheMessageEventSequenceWithExactly50Deltas() {
    SseClient.Response response =
        post(
            "/v1/messages",
            "{\"model\":\"model-a\",\"max_tokens\":50,\"stream\":true,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Hello there, simulator\"}]}");

    assertEquals(200, response.status());
    assertTrue(response.header("Content-Type").startsWith("text/event-stream"));
    assertEquals(
        List.of(
            "message_start",
            "content_block_start",
            "ping",
            "delta×50",
            "content_block_stop",
            "message_delta",
            "message_stop"),
        shape(response));
    List<SseClient.Event> deltas = response.named("content_block_delta");
    assertEquals(50, deltas.size());
    for (SseClient.Event delta : deltas) {
      assertEquals("text_delta", delta.json().path("delta").path("type").asText());
      assertFalse(delta.json().path("delta").path("text").asText().isEmpty());
      assertEquals(0, delta.json().path("index").asInt());
    }
    JsonNode start = response.named("message_start").get(0).json().path("message");
    assertEquals("model-a", start.path("model").asText());
    assertEquals(6, start.path("usage").path("input_tokens").asInt());
    JsonNode messageDelta = response.named("message_delta").get(0).json();
    assertEquals("max_tokens", messageDelta.path("delta").path("stop_reason").asText());
    assertEquals(50, messageDelta.path("usage").path("output_tokens").asInt());
    assertFalse(response.truncated());
  }

  @Test
  void thinkingComesFirstInItsOwnBlockThenText() {
    SseClient.Response response =
        post(
            "/anthropic/v1/messages",
            "{\"model\":\"thinker\",\"max_tokens\":10,\"stream\":true,\"messages\":[]}");

    assertEquals(
        List.of(
            "message_start",
            "content_block_start",
            "ping",
            "delta×2",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "delta×8",
            "content_block_stop",
            "message_delta",
            "message_stop"),
        shape(response));
    List<SseClient.Event> blockStarts = response.named("content_block_start");
    assertEquals("thinking", blockStarts.get(0).json().path("content_block").path("type").asText());
    assertEquals("text", blockStarts.get(1).json().path("content_block").path("type").asText());
    assertEquals(1, blockStarts.get(1).json().path("index").asInt());
    List<String> deltaTypes =
        response.named("content_block_delta").stream()
            .map(e -> e.json().path("delta").path("type").asText())
            .toList();
    assertEquals(
        List.of(
            "thinking_delta",
            "thinking_delta",
            "signature_delta",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_delta"),
        deltaTypes);
  }

  @Test
  void nonStreamingAnswersOneMessage() {
    SseClient.Response response =
        post("/v1/messages", "{\"model\":\"model-b\",\"max_tokens\":12,\"messages\":[]}");

    assertEquals(200, response.status());
    JsonNode body = response.json();
    assertEquals("message", body.path("type").asText());
    assertEquals("text", body.path("content").path(0).path("type").asText());
    assertFalse(body.path("content").path(0).path("text").asText().isEmpty());
    assertEquals("max_tokens", body.path("stop_reason").asText());
    assertEquals(12, body.path("usage").path("output_tokens").asInt());
  }
}
