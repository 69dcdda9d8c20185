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
 * OpenAI chat completions streaming. An output token is a chunk whose delta has non-empty {@code
 * content} (or {@code refusal}), {@code reasoning_content}/{@code reasoning} or {@code tool_calls};
 * {@code choices: []} (the usage chunk) is not an error; an error object or a chunk with neither
 * {@code choices} nor {@code usage} fails the request as a protocol error.
 */
final class OpenAiDialect implements Dialect {
  @Override
  public ObjectNode requestBody(
      String model, ArrayNode messages, Integer maxTokens, ProducerConfig config) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("model", model);
    body.set("messages", messages.deepCopy());
    if (maxTokens != null) {
      body.put("max_tokens", maxTokens);
    }
    body.put("stream", true);
    if (config.includeUsage() || config.continuousUsage()) {
      ObjectNode options = body.putObject("stream_options");
      if (config.includeUsage()) {
        options.put("include_usage", true);
      }
      if (config.continuousUsage()) {
        options.put("continuous_usage_stats", true);
      }
    }
    Dialect.merge(body, config.extraBody());
    return body;
  }

  @Override
  public void authHeaders(ProducerConfig config, BiConsumer<String, String> header) {
    if (config.apiKey() != null) {
      header.accept("Authorization", "Bearer " + config.apiKey().reveal());
    }
  }

  @Override
  public StreamReader newReader() {
    return new Reader();
  }

  static final class Reader implements StreamReader {
    private Integer promptTokens;
    private Integer completionTokens;
    private int lastCompletionTokens;
    private String finishReason;

    @Override
    public Chunk read(SseEvent event) {
      String data = event.data();
      if (data.trim().equals("[DONE]")) {
        return Chunk.DONE;
      }
      JsonNode node;
      try {
        node = Json.MAPPER.readTree(data);
      } catch (IOException e) {
        if ("error".equals(event.event())) {
          return new Chunk.Failed("error event in the stream: " + Dialect.preview(data));
        }
        return new Chunk.Malformed("not JSON: " + Dialect.preview(data));
      }
      if (node == null || !node.isObject()) {
        return new Chunk.Malformed("not a JSON object: " + Dialect.preview(data));
      }
      JsonNode error = node.get("error");
      if (error != null && !error.isNull()) {
        return new Chunk.Failed("error in the stream: " + errorText(error));
      }
      if ("error".equals(event.event())) {
        return new Chunk.Failed("error event in the stream: " + Dialect.preview(data));
      }
      Integer chunkTokens = readUsage(node.get("usage"));
      JsonNode choices = node.get("choices");
      if (choices == null || choices.isNull()) {
        if (node.hasNonNull("usage")) {
          return Chunk.SKIP;
        }
        return new Chunk.Failed(
            "chunk without 'choices' (not a chat completion stream?): " + Dialect.preview(data));
      }
      if (!choices.isArray()) {
        return new Chunk.Failed("'choices' is not a list: " + Dialect.preview(data));
      }
      TokenKind kind = null;
      for (JsonNode choice : choices) {
        JsonNode reason = choice.get("finish_reason");
        if (reason != null && !reason.isNull()) {
          finishReason = reason.asText();
        }
        TokenKind k = tokenKind(choice);
        if (kind == null) {
          kind = k;
        }
      }
      if (kind == null) {
        return Chunk.SKIP;
      }
      return new Chunk.Token(kind, chunkTokens != null && chunkTokens > 0 ? chunkTokens : 1);
    }

    /** Records usage; returns the completion tokens this chunk added, or null if it had none. */
    private Integer readUsage(JsonNode usage) {
      if (usage == null || !usage.isObject()) {
        return null;
      }
      if (usage.get("prompt_tokens") != null && usage.get("prompt_tokens").canConvertToInt()) {
        promptTokens = usage.get("prompt_tokens").asInt();
      }
      JsonNode completion = usage.get("completion_tokens");
      if (completion == null || !completion.canConvertToInt()) {
        return null;
      }
      int total = completion.asInt();
      int added = total - lastCompletionTokens;
      lastCompletionTokens = Math.max(lastCompletionTokens, total);
      completionTokens = total;
      return added;
    }

    private static TokenKind tokenKind(JsonNode choice) {
      JsonNode delta = choice.get("delta");
      if (delta == null || !delta.isObject()) {
        return nonEmpty(choice.get("text")) ? TokenKind.CONTENT : null;
      }
      if (nonEmpty(delta.get("content")) || nonEmpty(delta.get("refusal"))) {
        return TokenKind.CONTENT;
      }
      if (nonEmpty(delta.get("reasoning_content")) || nonEmpty(delta.get("reasoning"))) {
        return TokenKind.REASONING;
      }
      JsonNode tools = delta.get("tool_calls");
      if (tools != null && tools.isArray() && !tools.isEmpty()) {
        return TokenKind.TOOL;
      }
      return null;
    }

    private static boolean nonEmpty(JsonNode n) {
      return n != null && n.isTextual() && !n.asText().isEmpty();
    }

    static String errorText(JsonNode error) {
      if (error.isTextual()) {
        return Dialect.preview(error.asText());
      }
      JsonNode message = error.get("message");
      String text = message != null && message.isTextual() ? message.asText() : error.toString();
      JsonNode type = error.get("type");
      if (type == null || !type.isTextual()) {
        type = error.get("code");
      }
      return Dialect.preview(
          type != null && type.isValueNode() && !type.isNull()
              ? type.asText() + ": " + text
              : text);
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
