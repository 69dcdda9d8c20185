package io.tpotstream.producer.dialect;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.config.ProducerConfig;
import java.io.IOException;
import java.util.function.BiConsumer;

/**
 * Anthropic messages streaming. An output token is a {@code content_block_delta} with non-empty
 * text, thinking or input JSON; usage comes from {@code message_start} and {@code message_delta}
 * (cumulative): the prompt tokens are {@code input_tokens} plus {@code cache_creation_input_tokens}
 * plus {@code cache_read_input_tokens} (Anthropic's {@code input_tokens} leaves the cached ones
 * out), the cached ones {@code cache_read_input_tokens}; {@code message_stop} ends the stream; an
 * {@code error} event fails the request.
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

  static final class Reader extends JsonChunkReader {
    // one event's findings: the usage of message_delta (top level) and of message_start (inside
    // its message)
    private String type;
    private final Usage usage = new Usage();
    private String deltaType;
    private boolean text;
    private boolean thinking;
    private boolean partialJson;
    private String stopReason;
    private final Usage messageUsage = new Usage();

    /** One usage object's counts, null when absent. */
    private static final class Usage {
      Integer input;
      Integer cacheCreation;
      Integer cacheRead;
      Integer output;

      void clear() {
        input = null;
        cacheCreation = null;
        cacheRead = null;
        output = null;
      }
    }

    @Override
    public Chunk read(String event, byte[] data, int offset, int length) {
      type = null;
      usage.clear();
      deltaType = null;
      text = false;
      thinking = false;
      partialJson = false;
      stopReason = null;
      messageUsage.clear();
      Chunk notAnObject = parse(event, data, offset, length);
      if (notAnObject != null) {
        return notAnObject;
      }
      switch (type != null ? type : event) {
        case "message_start" -> {
          commit(messageUsage);
          return Chunk.SKIP;
        }
        case "message_delta" -> {
          if (stopReason != null) {
            finishReason = stopReason;
          }
          commit(usage);
          return Chunk.SKIP;
        }
        case "content_block_delta" -> {
          return delta();
        }
        case "message_stop" -> {
          return Chunk.DONE;
        }
        case "error" -> {
          return new Chunk.Failed(
              "error in the stream: "
                  + errorText(error == null ? MissingNode.getInstance() : error));
        }
        default -> {
          return Chunk.SKIP;
        }
      }
    }

    @Override
    void readObject(JsonParser p) throws IOException {
      String kind = null;
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        switch (field) {
          case "type" -> {
            kind = value.isScalarValue() && value != JsonToken.VALUE_NULL ? p.getText() : null;
            ChunkParser.skip(p);
          }
          case "message" -> {
            if (value == JsonToken.START_OBJECT) {
              readMessage(p);
            } else {
              ChunkParser.skip(p);
            }
          }
          case "delta" -> {
            if (value == JsonToken.START_OBJECT) {
              readDelta(p);
            } else {
              ChunkParser.skip(p);
            }
          }
          case "usage" -> readUsage(p, value, usage);
          case "error" -> readError(p, value);
          default -> ChunkParser.skip(p);
        }
      }
      type = kind;
    }

    private void readMessage(JsonParser p) throws IOException {
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        if (field.equals("usage")) {
          readUsage(p, value, messageUsage);
        } else {
          ChunkParser.skip(p);
        }
      }
    }

    private void readUsage(JsonParser p, JsonToken value, Usage into) throws IOException {
      if (value != JsonToken.START_OBJECT) {
        ChunkParser.skip(p);
        return;
      }
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken v = ChunkParser.next(p);
        switch (field) {
          case "input_tokens" -> into.input = intValue(p, v);
          case "cache_creation_input_tokens" -> into.cacheCreation = intValue(p, v);
          case "cache_read_input_tokens" -> into.cacheRead = intValue(p, v);
          case "output_tokens" -> into.output = intValue(p, v);
          default -> ChunkParser.skip(p);
        }
      }
    }

    private void readDelta(JsonParser p) throws IOException {
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        switch (field) {
          case "type" -> {
            deltaType = value == JsonToken.VALUE_STRING ? p.getText() : null;
            ChunkParser.skip(p);
          }
          case "text" -> text = nonEmptyString(p, value);
          case "thinking" -> thinking = nonEmptyString(p, value);
          case "partial_json" -> partialJson = nonEmptyString(p, value);
          case "stop_reason" -> {
            stopReason =
                value != JsonToken.VALUE_NULL && value.isScalarValue() ? p.getText() : null;
            ChunkParser.skip(p);
          }
          default -> ChunkParser.skip(p);
        }
      }
    }

    /** Keeps what one usage object reported (each count is cumulative). */
    private void commit(Usage u) {
      if (u.input != null) {
        long prompt = (long) u.input + orZero(u.cacheCreation) + orZero(u.cacheRead);
        promptTokens =
            prompt >= Integer.MIN_VALUE && prompt <= Integer.MAX_VALUE ? (int) prompt : null;
      }
      if (u.cacheRead != null) {
        cachedTokens = u.cacheRead;
      }
      if (u.output != null) {
        completionTokens = u.output;
      }
    }

    private static long orZero(Integer n) {
      return n == null ? 0 : n;
    }

    private Chunk delta() {
      if (deltaType == null) {
        return Chunk.SKIP;
      }
      return switch (deltaType) {
        case "text_delta" -> text ? Chunk.token(TokenKind.CONTENT, 1) : Chunk.SKIP;
        case "thinking_delta" -> thinking ? Chunk.token(TokenKind.REASONING, 1) : Chunk.SKIP;
        case "input_json_delta" -> partialJson ? Chunk.token(TokenKind.TOOL, 1) : Chunk.SKIP;
        default -> Chunk.SKIP;
      };
    }
  }
}
