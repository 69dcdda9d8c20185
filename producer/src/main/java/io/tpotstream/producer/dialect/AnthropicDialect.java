package io.tpotstream.producer.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.sse.SseEvent;
import java.io.IOException;
import java.util.function.BiConsumer;

/**
 * Anthropic messages streaming. An output token is a {@code content_block_delta} with non-empty
 * text, thinking or input JSON; usage comes from {@code message_start} and {@code message_delta};
 * {@code message_stop} ends the stream; an {@code error} event fails the request.
 */
final class AnthropicDialect implements Dialect {
  /** Anthropic requires max_tokens; this is sent when the config leaves it out. */
  static final int REQUIRED_MAX_TOKENS = 256;

  @Override
  public ObjectNode requestBody(
      String model, ArrayNode messages, Integer maxTokens, ProducerConfig config) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("model", model);
    body.put("max_tokens", maxTokens != null ? maxTokens : REQUIRED_MAX_TOKENS);
    StringBuilder system = new StringBuilder();
    ArrayNode turns = body.putArray("messages");
    for (JsonNode m : messages) {
      if ("system".equals(m.path("role").asText())) {
        system.append(system.length() > 0 ? "\n" : "").append(m.path("content").asText());
      } else {
        turns.add(m.deepCopy());
      }
    }
    if (system.length() > 0) {
      body.put("system", system.toString());
    }
    body.put("stream", true);
    Dialect.merge(body, config.extraBody());
    return body;
  }

  @Override
  public void authHeaders(ProducerConfig config, BiConsumer<String, String> header) {
    if (config.apiKey() != null) {
      header.accept("x-api-key", config.apiKey().reveal());
    }
    header.accept("anthropic-version", config.anthropicVersion());
  }

  @Override
  public StreamReader newReader() {
    return new Reader();
  }

  static final class Reader implements StreamReader {
    private Integer promptTokens;
    private Integer completionTokens;
    private String finishReason;

    @Override
    public Chunk read(SseEvent event) {
      JsonNode node;
      try {
        node = Json.MAPPER.readTree(event.data());
      } catch (IOException e) {
        if ("error".equals(event.event())) {
          return new Chunk.Failed("error event in the stream: " + Dialect.preview(event.data()));
        }
        return new Chunk.Malformed("not JSON: " + Dialect.preview(event.data()));
      }
      if (node == null || !node.isObject()) {
        return new Chunk.Malformed("not a JSON object: " + Dialect.preview(event.data()));
      }
      String type = node.path("type").asText(event.event());
      switch (type) {
        case "message_start" -> {
          readUsage(node.path("message").path("usage"));
          return Chunk.SKIP;
        }
        case "content_block_delta" -> {
          return delta(node.path("delta"));
        }
        case "message_delta" -> {
          JsonNode reason = node.path("delta").get("stop_reason");
          if (reason != null && !reason.isNull()) {
            finishReason = reason.asText();
          }
          readUsage(node.path("usage"));
          return Chunk.SKIP;
        }
        case "message_stop" -> {
          return Chunk.DONE;
        }
        case "error" -> {
          return new Chunk.Failed(
              "error in the stream: " + OpenAiDialect.Reader.errorText(node.path("error")));
        }
        default -> {
          return Chunk.SKIP;
        }
      }
    }

    private static Chunk delta(JsonNode delta) {
      String type = delta.path("type").asText("");
      return switch (type) {
        case "text_delta" -> token(delta.get("text"), TokenKind.CONTENT);
        case "thinking_delta" -> token(delta.get("thinking"), TokenKind.REASONING);
        case "input_json_delta" -> token(delta.get("partial_json"), TokenKind.TOOL);
        default -> Chunk.SKIP;
      };
    }

    private static Chunk token(JsonNode text, TokenKind kind) {
      return text != null && text.isTextual() && !text.asText().isEmpty()
          ? new Chunk.Token(kind, 1)
          : Chunk.SKIP;
    }

    private void readUsage(JsonNode usage) {
      if (usage.get("input_tokens") != null && usage.get("input_tokens").canConvertToInt()) {
        promptTokens = usage.get("input_tokens").asInt();
      }
      if (usage.get("output_tokens") != null && usage.get("output_tokens").canConvertToInt()) {
        completionTokens = usage.get("output_tokens").asInt();
      }
    }

    @Override
    public Integer promptTokens() {
      return promptTokens;
    }

    @Override
    public Integer completionTokens() {
      return completionTokens;
    }

    @Override
    public String finishReason() {
      return finishReason;
    }
  }
}
