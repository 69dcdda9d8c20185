package io.tpotstream.simulator.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.simulator.cache.PromptBlocks;
import io.tpotstream.simulator.plan.Planner;
import java.util.function.Consumer;

/**
 * What the simulator reads from a chat request body.
 *
 * @param maxTokens {@code max_completion_tokens}, else {@code max_tokens}, else null
 * @param includeUsage OpenAI {@code stream_options.include_usage}
 * @param continuousUsage vLLM's {@code stream_options.continuous_usage_stats}
 * @param promptTokens an estimate: the characters of the system and messages' text ({@link
 *     #promptText}) / 4 (rounded up), at least 1
 */
record ChatRequest(
    String model,
    boolean stream,
    Integer maxTokens,
    boolean includeUsage,
    boolean continuousUsage,
    int promptTokens) {

  /** The model named by {@code body}, or null when there is none. */
  static String model(JsonNode body) {
    JsonNode model = body.path("model");
    return model.isTextual() && !model.textValue().isBlank() ? model.textValue() : null;
  }

  static ChatRequest parse(JsonNode body) throws BadRequest {
    String model = model(body);
    if (model == null) {
      throw new BadRequest("you must provide a model parameter (a string)", "model");
    }
    JsonNode stream = body.path("stream");
    if (!stream.isMissingNode() && !stream.isNull() && !stream.isBoolean()) {
      throw new BadRequest("stream must be true or false, got " + stream, "stream");
    }
    Integer maxTokens = tokens(body, "max_completion_tokens");
    if (maxTokens == null) {
      maxTokens = tokens(body, "max_tokens");
    }
    JsonNode options = body.path("stream_options");
    return new ChatRequest(
        model,
        stream.asBoolean(false),
        maxTokens,
        options.path("include_usage").asBoolean(false),
        options.path("continuous_usage_stats").asBoolean(false),
        promptTokens(body));
  }

  private static Integer tokens(JsonNode body, String field) throws BadRequest {
    JsonNode value = body.path(field);
    if (value.isMissingNode() || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber()
        || !value.canConvertToInt()
        || value.intValue() < 1
        || value.intValue() > Planner.MAX_OUTPUT_TOKENS) {
      throw new BadRequest(
          field
              + " must be a whole number from 1 to "
              + Planner.MAX_OUTPUT_TOKENS
              + ", got "
              + value,
          field);
    }
    return value.intValue();
  }

  private static int promptTokens(JsonNode body) {
    long[] chars = {0};
    promptText(body, text -> chars[0] += text.length());
    return (int)
        Math.max(
            1,
            Math.min(
                Integer.MAX_VALUE,
                (chars[0] + PromptBlocks.CHARS_PER_TOKEN - 1) / PromptBlocks.CHARS_PER_TOKEN));
  }

  /**
   * The keys of the whole blocks of {@code body}'s prompt to {@code model} ({@link #promptText}).
   */
  static long[] promptBlocks(JsonNode body, String model, int blockTokens) {
    PromptBlocks blocks = new PromptBlocks(model, blockTokens);
    promptText(body, blocks::add);
    return blocks.keys();
  }

  /**
   * The prompt's text, piece by piece, in the order a chat template puts it: the system text
   * (Anthropic's {@code system}), then each message's; strings in {@code content} or {@code text}
   * fields, or lists of them.
   */
  static void promptText(JsonNode body, Consumer<String> pieces) {
    text(body.path("system"), "content", pieces);
    text(body.path("messages"), "content", pieces);
  }

  private static void text(JsonNode node, String field, Consumer<String> pieces) {
    if (node.isTextual()) {
      if (field.equals("content") || field.equals("text")) {
        pieces.accept(node.textValue());
      }
    } else if (node.isArray()) {
      for (JsonNode child : node) {
        text(child, field, pieces);
      }
    } else if (node.isObject()) {
      var fields = node.fields();
      while (fields.hasNext()) {
        var entry = fields.next();
        text(entry.getValue(), entry.getKey(), pieces);
      }
    }
  }
}
