package io.tpotstream.producer.dialect;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.config.ProducerConfig;
import java.io.IOException;
import java.util.function.BiConsumer;

/**
 * OpenAI chat completions streaming. An output token is a chunk whose delta has non-empty {@code
 * content} (or {@code refusal}), {@code reasoning_content}/{@code reasoning} or {@code tool_calls};
 * {@code choices: []} (the usage chunk) is not an error; its {@code
 * prompt_tokens_details.cached_tokens} (the prompt tokens the server read from its prefix cache) is
 * kept beside {@code prompt_tokens}; a {@code metrics} object (vLLM's per-request metrics, in its
 * last chunk) is kept as the {@link EngineReport}; an error object or a chunk with neither {@code
 * choices}, {@code usage} nor {@code metrics} fails the request as a protocol error.
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
      if (config.ignoreEos()) {
        // vLLM's and SGLang's: no stop before max_tokens (OpenAI's API refuses both)
        body.put("min_tokens", maxTokens);
        body.put("ignore_eos", true);
      }
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

  static final class Reader extends JsonChunkReader {
    private int lastCompletionTokens;

    // one chunk's findings, committed to the fields above only when the chunk is valid JSON
    private TokenKind kind;
    private String reason;
    private boolean sawChoices;
    private boolean choicesNotList;
    private boolean sawUsage;
    private Integer usagePrompt;
    private Integer usageCached;
    private Integer usageCompletion;
    private EngineReport chunkReport;
    private EngineReport report;

    @Override
    public EngineReport engineReport() {
      return report;
    }

    @Override
    public Chunk read(String event, byte[] data, int offset, int length) {
      if (Dialect.isDone(data, offset, length)) {
        return Chunk.DONE;
      }
      kind = null;
      reason = null;
      sawChoices = false;
      choicesNotList = false;
      sawUsage = false;
      usagePrompt = null;
      usageCached = null;
      usageCompletion = null;
      chunkReport = null;
      Chunk notAnObject = parse(event, data, offset, length);
      if (notAnObject != null) {
        return notAnObject;
      }
      if (error != null && !error.isNull()) {
        return new Chunk.Failed("error in the stream: " + errorText(error));
      }
      if ("error".equals(event)) {
        return new Chunk.Failed(
            "error event in the stream: " + Dialect.preview(data, offset, length));
      }
      Integer chunkTokens = commitUsage();
      if (chunkReport != null) {
        report = chunkReport;
      }
      if (!sawChoices) {
        if (sawUsage || chunkReport != null) {
          return Chunk.SKIP;
        }
        return new Chunk.Failed(
            "chunk without 'choices' (not a chat completion stream?): "
                + Dialect.preview(data, offset, length));
      }
      if (choicesNotList) {
        return new Chunk.Failed(
            "'choices' is not a list: " + Dialect.preview(data, offset, length));
      }
      if (reason != null) {
        finishReason = reason;
      }
      if (kind == null) {
        return Chunk.SKIP;
      }
      return Chunk.token(kind, chunkTokens != null && chunkTokens > 0 ? chunkTokens : 1);
    }

    @Override
    void readObject(JsonParser p) throws IOException {
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        switch (field) {
          case "choices" -> {
            if (value == JsonToken.VALUE_NULL) {
              continue;
            }
            sawChoices = true;
            if (value != JsonToken.START_ARRAY) {
              choicesNotList = true;
              ChunkParser.skip(p);
              continue;
            }
            while (ChunkParser.next(p) != JsonToken.END_ARRAY) {
              if (p.currentToken() == JsonToken.START_OBJECT) {
                TokenKind k = readChoice(p);
                if (kind == null) {
                  kind = k;
                }
              } else {
                ChunkParser.skip(p);
              }
            }
          }
          case "usage" -> {
            if (value == JsonToken.START_OBJECT) {
              sawUsage = true;
              readUsage(p);
            } else {
              ChunkParser.skip(p);
            }
          }
          case "metrics" -> {
            if (value == JsonToken.START_OBJECT) {
              chunkReport = readMetrics(p);
            } else {
              ChunkParser.skip(p);
            }
          }
          case "error" -> readError(p, value);
          default -> ChunkParser.skip(p);
        }
      }
    }

    /** vLLM's per-request {@code metrics} object (the parser is on its START_OBJECT). */
    private static EngineReport readMetrics(JsonParser p) throws IOException {
      Double ttft = null;
      Double queue = null;
      Double meanItl = null;
      Double generation = null;
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        switch (field) {
          case "time_to_first_token_ms" -> ttft = msValue(p, value);
          case "queue_time_ms" -> queue = msValue(p, value);
          case "mean_itl_ms" -> meanItl = msValue(p, value);
          case "generation_time_ms" -> generation = msValue(p, value);
          default -> ChunkParser.skip(p);
        }
      }
      return new EngineReport(ttft, queue, meanItl, generation);
    }

    /** A number as given, null for null, NaN for anything else (a value the Recorder refuses). */
    private static Double msValue(JsonParser p, JsonToken value) throws IOException {
      if (value == JsonToken.VALUE_NUMBER_INT || value == JsonToken.VALUE_NUMBER_FLOAT) {
        return p.getDoubleValue();
      }
      ChunkParser.skip(p);
      return value == JsonToken.VALUE_NULL ? null : Double.NaN;
    }

    /** One choice object (the parser is on its START_OBJECT); returns its token kind or null. */
    private TokenKind readChoice(JsonParser p) throws IOException {
      boolean deltaObject = false;
      TokenKind deltaKind = null;
      boolean text = false;
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        switch (field) {
          case "finish_reason" -> {
            if (value != JsonToken.VALUE_NULL) {
              reason = value.isScalarValue() ? p.getText() : null;
              ChunkParser.skip(p);
            }
          }
          case "delta" -> {
            if (value == JsonToken.START_OBJECT) {
              deltaObject = true;
              deltaKind = readDelta(p);
            } else {
              ChunkParser.skip(p);
            }
          }
          case "text" -> text = nonEmptyString(p, value);
          default -> ChunkParser.skip(p);
        }
      }
      if (!deltaObject) {
        return text ? TokenKind.CONTENT : null;
      }
      return deltaKind;
    }

    private static TokenKind readDelta(JsonParser p) throws IOException {
      boolean content = false;
      boolean reasoning = false;
      boolean tools = false;
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        switch (field) {
          case "content", "refusal" -> content |= nonEmptyString(p, value);
          case "reasoning_content", "reasoning" -> reasoning |= nonEmptyString(p, value);
          case "tool_calls" -> {
            if (value == JsonToken.START_ARRAY) {
              tools |= ChunkParser.next(p) != JsonToken.END_ARRAY;
              if (p.currentToken() != JsonToken.END_ARRAY) {
                ChunkParser.skip(p);
                while (ChunkParser.next(p) != JsonToken.END_ARRAY) {
                  ChunkParser.skip(p);
                }
              }
            } else {
              ChunkParser.skip(p);
            }
          }
          default -> ChunkParser.skip(p);
        }
      }
      if (content) {
        return TokenKind.CONTENT;
      }
      if (reasoning) {
        return TokenKind.REASONING;
      }
      return tools ? TokenKind.TOOL : null;
    }

    private void readUsage(JsonParser p) throws IOException {
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        switch (field) {
          case "prompt_tokens" -> usagePrompt = intValue(p, value);
          case "completion_tokens" -> usageCompletion = intValue(p, value);
          case "prompt_tokens_details" -> {
            if (value == JsonToken.START_OBJECT) {
              readPromptDetails(p);
            } else {
              ChunkParser.skip(p);
            }
          }
          default -> ChunkParser.skip(p);
        }
      }
    }

    private void readPromptDetails(JsonParser p) throws IOException {
      while (ChunkParser.next(p) == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = ChunkParser.next(p);
        if (field.equals("cached_tokens")) {
          usageCached = intValue(p, value);
        } else {
          ChunkParser.skip(p);
        }
      }
    }

    /** Records the chunk's usage; returns the completion tokens it added, or null if none. */
    private Integer commitUsage() {
      if (usagePrompt != null) {
        promptTokens = usagePrompt;
      }
      if (usageCached != null) {
        cachedTokens = usageCached;
      }
      if (usageCompletion == null) {
        return null;
      }
      int total = usageCompletion;
      int added = total - lastCompletionTokens;
      lastCompletionTokens = Math.max(lastCompletionTokens, total);
      completionTokens = total;
      return added;
    }
  }
}
