package io.tpotstream.simulator.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.engine.RequestMetrics;
import io.tpotstream.simulator.plan.ResponsePlan;

/** Non-streamed answers: the whole planned output in one JSON body. */
final class CompleteBodies {
  private CompleteBodies() {}

  /**
   * The {@code chat.completion} body; with {@code engineView} (the profile's {@code
   * perRequestMetrics}), vLLM's per-request {@code "metrics"} object after its {@code usage}.
   */
  static String openAi(
      ResponsePlan plan,
      ChatRequest request,
      String requestId,
      long createdS,
      RequestMetrics engineView) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("id", "chatcmpl-" + requestId)
        .put("object", "chat.completion")
        .put("created", createdS)
        .put("model", request.model());
    ObjectNode choice = body.putArray("choices").addObject().put("index", 0);
    ObjectNode message = choice.putObject("message").put("role", "assistant");
    message.put("content", plan.joinedText(false));
    if (plan.reasoningTokens() > 0) {
      message.put("reasoning_content", plan.joinedText(true));
    }
    choice.putNull("logprobs").put("finish_reason", plan.lengthCapped() ? "length" : "stop");
    ObjectNode usage =
        body.putObject("usage")
            .put("prompt_tokens", plan.promptTokens())
            .put("completion_tokens", plan.outputTokens())
            .put("total_tokens", plan.promptTokens() + plan.outputTokens());
    if (plan.cachedTokens() != null) {
      usage.putObject("prompt_tokens_details").put("cached_tokens", plan.cachedTokens());
    }
    if (plan.reasoningTokens() > 0) {
      usage.putObject("completion_tokens_details").put("reasoning_tokens", plan.reasoningTokens());
    }
    if (engineView != null) {
      body.putRawValue("metrics", new RawValue(engineView.json()));
    }
    return body.toString();
  }

  static String anthropic(ResponsePlan plan, ChatRequest request, String requestId) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("id", "msg_" + requestId)
        .put("type", "message")
        .put("role", "assistant")
        .put("model", request.model());
    ArrayNode content = body.putArray("content");
    if (plan.reasoningTokens() > 0) {
      content
          .addObject()
          .put("type", "thinking")
          .put("thinking", plan.joinedText(true))
          .put("signature", "c2ltdWxhdGVk");
    }
    if (plan.reasoningTokens() < plan.outputTokens()) {
      content.addObject().put("type", "text").put("text", plan.joinedText(false));
    }
    body.put("stop_reason", plan.lengthCapped() ? "max_tokens" : "end_turn")
        .putNull("stop_sequence");
    ObjectNode usage = body.putObject("usage");
    Integer cached = plan.cachedTokens();
    if (cached == null) {
      usage.put("input_tokens", plan.promptTokens());
    } else {
      usage
          .put("input_tokens", plan.promptTokens() - cached)
          .put("cache_creation_input_tokens", 0)
          .put("cache_read_input_tokens", cached);
    }
    usage.put("output_tokens", plan.outputTokens());
    return body.toString();
  }
}
