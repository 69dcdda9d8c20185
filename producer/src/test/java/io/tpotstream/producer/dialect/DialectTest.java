package io.tpotstream.producer.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.sse.SseEvent;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DialectTest {
  private static SseEvent data(String json) {
    return new SseEvent("message", json, 0);
  }

  private static SseEvent event(String type, String json) {
    return new SseEvent(type, json, 0);
  }

  /** An OpenAI chunk of one choice with {@code delta} reads as one token of {@code kind}. */
  private static void assertOneToken(StreamReader r, TokenKind kind, String delta) {
    String chunk = "{\"choices\":[{\"delta\":" + delta + "}]}";
    assertEquals(new Chunk.Token(kind, 1), r.read(data(chunk)), chunk);
  }

  private static ProducerConfig config(Map<String, String> extra) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("base_url", "http://h");
    o.put("models", "m");
    o.put("api_key", "k");
    o.putAll(extra);
    return ConfigLoader.load(null, o, Map.of(), w -> {});
  }

  @Test
  void openAiTokensAreContentReasoningAndToolChunks() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    assertOneToken(r, TokenKind.CONTENT, "{\"content\":\"Hi\"}");
    assertOneToken(r, TokenKind.REASONING, "{\"reasoning_content\":\"hm\"}");
    assertOneToken(r, TokenKind.REASONING, "{\"reasoning\":\"hm\"}");
    assertOneToken(r, TokenKind.CONTENT, "{\"content\":null,\"refusal\":\"no\"}");
    assertOneToken(
        r, TokenKind.TOOL, "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\"}}]}");
  }

  @Test
  void openAiRoleOnlyEmptyAndUsageOnlyChunksAreNotTokens() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    assertEquals(Chunk.SKIP, r.read(data("{\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}")));
    assertEquals(Chunk.SKIP, r.read(data("{\"choices\":[{\"delta\":{\"content\":\"\"}}]}")));
    assertEquals(Chunk.SKIP, r.read(data("{\"choices\":[{\"delta\":{\"content\":null}}]}")));
    assertEquals(
        Chunk.SKIP, r.read(data("{\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}")));
    assertEquals("stop", r.finishReason());
    assertEquals(
        Chunk.SKIP,
        r.read(data("{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":42}}")));
    assertEquals(9, r.promptTokens());
    assertEquals(42, r.completionTokens());
    assertEquals(Chunk.DONE, r.read(data("[DONE]")));
  }

  @Test
  void openAiEmptyChoicesIsNotAnError() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    assertEquals(Chunk.SKIP, r.read(data("{\"id\":\"x\",\"choices\":[]}")));
  }

  @Test
  void openAiErrorObjectAndMissingChoicesFailAsProtocol() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    Chunk error =
        r.read(data("{\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}"));
    assertEquals(new Chunk.Failed("error in the stream: server_error: model overloaded"), error);
    Chunk missing = r.read(data("{\"id\":\"x\",\"object\":\"chat.completion.chunk\"}"));
    assertInstanceOf(Chunk.Failed.class, missing);
    assertTrue(((Chunk.Failed) missing).message().startsWith("chunk without 'choices'"));
  }

  @Test
  void openAiMalformedChunkIsSkippable() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    assertInstanceOf(Chunk.Malformed.class, r.read(data("{\"choices\":[{\"delta\"")));
    assertInstanceOf(Chunk.Malformed.class, r.read(data("42")));
    assertOneToken(r, TokenKind.CONTENT, "{\"content\":\"ok\"}");
  }

  @Test
  void oneParserServesEveryChunkWhateverCameBefore() {
    StreamReader a = Dialect.of(ApiKind.OPENAI).newReader();
    StreamReader b = Dialect.of(ApiKind.ANTHROPIC).newReader();
    String token = "{\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}";
    // a chunk cut inside a string, trailing bytes after an object, an empty chunk, a bare array
    for (String before :
        List.of("{\"choices\":[{\"delta\":{\"content\":\"unterminated", token + " x", "", "[1,")) {
      a.read(data(before));
      assertEquals(new Chunk.Token(TokenKind.CONTENT, 1), a.read(data(token)), "after " + before);
      assertEquals(
          new Chunk.Token(TokenKind.CONTENT, 1),
          b.read(
              event(
                  "content_block_delta",
                  "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}")),
          "another reader on the same thread, after " + before);
    }
    assertInstanceOf(Chunk.Malformed.class, a.read(data("")));
    assertInstanceOf(Chunk.Malformed.class, a.read(data("[1,")));
  }

  @Test
  void openAiPerChunkUsageGivesTokensPerChunk() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    r.read(
        data(
            "{\"choices\":[{\"delta\":{\"role\":\"assistant\"}}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":0}}"));
    assertEquals(
        new Chunk.Token(TokenKind.CONTENT, 1),
        r.read(
            data(
                "{\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}")));
    assertEquals(
        new Chunk.Token(TokenKind.CONTENT, 3),
        r.read(
            data(
                "{\"choices\":[{\"delta\":{\"content\":\"bcd\"}}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":4}}")));
    assertEquals(4, r.completionTokens());
  }

  @Test
  void anthropicStreamReadsTokensUsageAndStop() {
    StreamReader r = Dialect.of(ApiKind.ANTHROPIC).newReader();
    assertEquals(
        Chunk.SKIP,
        r.read(
            event(
                "message_start",
                "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}")));
    assertEquals(
        Chunk.SKIP,
        r.read(
            event(
                "content_block_start",
                "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")));
    assertEquals(Chunk.SKIP, r.read(event("ping", "{\"type\":\"ping\"}")));
    assertEquals(
        new Chunk.Token(TokenKind.CONTENT, 1),
        r.read(
            event(
                "content_block_delta",
                "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}")));
    assertEquals(
        new Chunk.Token(TokenKind.REASONING, 1),
        r.read(
            event(
                "content_block_delta",
                "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hm\"}}")));
    assertEquals(
        new Chunk.Token(TokenKind.TOOL, 1),
        r.read(
            event(
                "content_block_delta",
                "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\"\"}}")));
    assertEquals(
        Chunk.SKIP,
        r.read(
            event(
                "content_block_delta",
                "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"\"}}")));
    assertFalse(r.finished());
    assertEquals(
        Chunk.SKIP,
        r.read(
            event(
                "message_delta",
                "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":3}}")));
    assertEquals("end_turn", r.finishReason());
    assertEquals(12, r.promptTokens());
    assertEquals(3, r.completionTokens());
    assertEquals(Chunk.DONE, r.read(event("message_stop", "{\"type\":\"message_stop\"}")));
  }

  @Test
  void openAiCachedTokensComeFromThePromptTokensDetails() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    assertEquals(null, r.cachedTokens());
    r.read(data("{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":1}}"));
    assertEquals(null, r.cachedTokens(), "no prompt_tokens_details: not reported");
    r.read(
        data(
            "{\"choices\":[],\"usage\":{\"prompt_tokens\":2006,\"completion_tokens\":300,"
                + "\"total_tokens\":2306,\"prompt_tokens_details\":{\"cached_tokens\":1920,"
                + "\"audio_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":0}}}"));
    assertEquals(2006, r.promptTokens());
    assertEquals(1920, r.cachedTokens());
    assertEquals(300, r.completionTokens());
    r.read(data("{\"choices\":[],\"usage\":{\"prompt_tokens_details\":null}}"));
    assertEquals(1920, r.cachedTokens(), "a null details object reports nothing new");
  }

  @Test
  void openAiKeepsTheServersPerRequestMetricsAsWritten() {
    StreamReader r = Dialect.of(ApiKind.OPENAI).newReader();
    assertEquals(null, r.engineReport());
    assertOneToken(r, TokenKind.CONTENT, "{\"content\":\"hi\"}");
    // vLLM's last chunk: usage and the request's metrics, no choice
    assertEquals(
        Chunk.SKIP,
        r.read(
            data(
                "{\"choices\":[],\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2},"
                    + "\"metrics\":{\"time_to_first_token_ms\":85.2,\"generation_time_ms\":1240.5,"
                    + "\"queue_time_ms\":12.3,\"mean_itl_ms\":9.1,\"tokens_per_second\":103.2}}")));
    assertEquals(new EngineReport(85.2, 12.3, 9.1, 1240.5), r.engineReport());
    // a chunk of metrics alone is no protocol error; what is not a number is kept as NaN
    assertEquals(
        Chunk.SKIP,
        r.read(data("{\"metrics\":{\"time_to_first_token_ms\":\"85\",\"queue_time_ms\":null}}")));
    assertEquals(new EngineReport(Double.NaN, null, null, null), r.engineReport());
    assertInstanceOf(Chunk.Malformed.class, r.read(data("{\"metrics\":{\"mean_itl_ms\":1")));
    assertEquals(
        new EngineReport(Double.NaN, null, null, null),
        r.engineReport(),
        "a chunk that is not whole JSON changes nothing");
  }

  @Test
  void anthropicPromptTokensAddTheCachedOnesToInputTokens() {
    StreamReader r = Dialect.of(ApiKind.ANTHROPIC).newReader();
    r.read(
        event(
            "message_start",
            "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":25,"
                + "\"cache_creation_input_tokens\":7,\"cache_read_input_tokens\":160,"
                + "\"output_tokens\":1}}}"));
    assertEquals(25 + 7 + 160, r.promptTokens());
    assertEquals(160, r.cachedTokens());
    r.read(
        event(
            "message_delta",
            "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                + "\"usage\":{\"output_tokens\":3}}"));
    assertEquals(192, r.promptTokens(), "a delta with output tokens only keeps the start's");
    assertEquals(160, r.cachedTokens());
    r.read(
        event(
            "message_delta",
            "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
                + "\"usage\":{\"input_tokens\":30,\"cache_creation_input_tokens\":0,"
                + "\"cache_read_input_tokens\":170,\"output_tokens\":4}}"));
    assertEquals(200, r.promptTokens(), "cumulative counts replace the start's");
    assertEquals(170, r.cachedTokens());
    assertEquals(4, r.completionTokens());
  }

  @Test
  void anthropicWithoutCacheFieldsReportsNoCachedTokens() {
    StreamReader r = Dialect.of(ApiKind.ANTHROPIC).newReader();
    r.read(
        event(
            "message_start",
            "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":12,"
                + "\"output_tokens\":1}}}"));
    assertEquals(12, r.promptTokens());
    assertEquals(null, r.cachedTokens());
  }

  @Test
  void anthropicErrorEventFailsAsProtocol() {
    StreamReader r = Dialect.of(ApiKind.ANTHROPIC).newReader();
    assertEquals(
        new Chunk.Failed("error in the stream: overloaded_error: Overloaded"),
        r.read(
            event(
                "error",
                "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")));
  }

  @Test
  void openAiBodyAsksForUsageAndMergesExtraBody() {
    ProducerConfig c =
        config(
            Map.of(
                "extra_body",
                "{\"temperature\":0,\"stream_options\":{\"continuous_usage_stats\":true},\"max_tokens\":null}"));
    ObjectNode body = Dialect.of(ApiKind.OPENAI).requestBody("m", c.prompts().messages(0), c);
    assertEquals(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\""
            + c.prompts().messages(0).get(0).get("content").asText()
            + "\"}],\"stream\":true,\"stream_options\":{\"include_usage\":true,"
            + "\"continuous_usage_stats\":true},\"temperature\":0}",
        body.toString());
  }

  @Test
  void openAiBodyWithoutUsageWhenTurnedOff() {
    ProducerConfig c = config(Map.of("include_usage", "false", "prompt", "p"));
    assertEquals(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"p\"}],\"max_tokens\":256,"
            + "\"stream\":true}",
        Dialect.of(ApiKind.OPENAI).requestBody("m", c.prompts().messages(0), c).toString());
  }

  @Test
  void anthropicBodyMovesSystemMessagesAndAlwaysHasMaxTokens() {
    ProducerConfig c = config(Map.of("api", "anthropic", "max_tokens", "null"));
    ObjectNode messages = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
    var list = messages.putArray("m");
    list.addObject().put("role", "system").put("content", "be brief");
    list.addObject().put("role", "user").put("content", "hi");
    assertEquals(
        "{\"model\":\"m\",\"max_tokens\":256,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
            + "\"system\":\"be brief\",\"stream\":true}",
        Dialect.of(ApiKind.ANTHROPIC).requestBody("m", list, c).toString());
    Map<String, String> headers = new LinkedHashMap<>();
    Dialect.of(ApiKind.ANTHROPIC).authHeaders(c, headers::put);
    assertEquals(Map.of("x-api-key", "k", "anthropic-version", "2023-06-01"), headers);
  }
}
