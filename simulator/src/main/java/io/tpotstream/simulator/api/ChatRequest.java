package io.tpotstream.simulator.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.simulator.plan.Planner;

/**
 * What the simulator reads from a chat request body.
 *
 * @param maxTokens {@code max_completion_tokens}, else {@code max_tokens}, else null
 * @param includeUsage OpenAI {@code stream_options.include_usage}
 * @param continuousUsage vLLM's {@code stream_options.continuous_usage_stats}
 * @param promptTokens an estimate: the characters of the messages' and system text / 4 (rounded
 *     up), at least 1
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
    long chars =
        textLength(body.path("messages"), "content") + textLength(body.path("system"), "content");
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (chars + 3) / 4));
  }

  /** The length of the text under {@code node}: strings in "content" or "text" fields, or lists. */
  private static long textLength(JsonNode node, String field) {
    if (node.isTextual()) {
      return field.equals("content") || field.equals("text") ? node.textValue().length() : 0;
    }
    long sum = 0;
    if (node.isArray()) {
      for (JsonNode child : node) {
        sum += textLength(child, field);
      }
    } else if (node.isObject()) {
      var fields = node.fields();
      while (fields.hasNext()) {
        var entry = fields.next();
        sum += textLength(entry.getValue(), entry.getKey());
      }
    }
    return sum;
  }
}
