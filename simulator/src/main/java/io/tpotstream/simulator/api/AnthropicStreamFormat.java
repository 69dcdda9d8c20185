package io.tpotstream.simulator.api;

import io.tpotstream.simulator.engine.RequestMetrics;
import io.tpotstream.simulator.plan.ResponsePlan;

/**
 * Anthropic's message events: {@code message_start}, {@code content_block_start}, {@code ping}, one
 * {@code content_block_delta} per output chunk ({@code thinking_delta} for reasoning, then {@code
 * text_delta}; a thinking block ends with a {@code signature_delta}, which is not a token), {@code
 * content_block_stop}, {@code message_delta} (stop reason, output tokens) and {@code message_stop}.
 * With a prefix cache, {@code message_start} and {@code message_delta} carry Anthropic's cache
 * usage (cumulative, as Anthropic sends it): {@code input_tokens} the prompt tokens the cache did
 * not hold, {@code cache_read_input_tokens} those it held, {@code cache_creation_input_tokens} 0.
 */
final class AnthropicStreamFormat implements StreamFormat {
  private final ResponsePlan plan;
  private final ChatRequest request;
  private final String requestId;
  private int block;

  AnthropicStreamFormat(ResponsePlan plan, ChatRequest request, String requestId) {
    this.plan = plan;
    this.request = request;
    this.requestId = requestId;
  }

  @Override
  public String opening() {
    StringBuilder out = new StringBuilder(512);
    event(out, "message_start").append("{\"type\":\"message_start\",\"message\":{\"id\":\"msg_");
    JsonText.append(out, requestId).append("\",\"type\":\"message\",\"role\":\"assistant\"");
    out.append(",\"model\":\"");
    JsonText.append(out, request.model())
        .append("\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null")
        .append(",\"usage\":");
    inputUsage(out).append("\"output_tokens\":1}}}\n\n");
    blockStart(out, plan.reasoning(0));
    return event(out, "ping").append("{\"type\":\"ping\"}\n\n").toString();
  }

  @Override
  public String chunk(int seq) {
    StringBuilder out = new StringBuilder(256);
    if (seq > 0 && plan.reasoning(seq) != plan.reasoning(seq - 1)) {
      blockStop(out, plan.reasoning(seq - 1));
      block++;
      blockStart(out, plan.reasoning(seq));
    }
    event(out, "content_block_delta")
        .append("{\"type\":\"content_block_delta\",\"index\":")
        .append(block)
        .append(
            plan.reasoning(seq)
                ? ",\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\""
                : ",\"delta\":{\"type\":\"text_delta\",\"text\":\"");
    JsonText.append(out, plan.text(seq));
    return out.append("\"}}\n\n").toString();
  }

  @Override
  public String malformedLine() {
    return "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"
        + block
        + ",\"delta\":{\"type\":\"text_delta\",\"text\":\"\n\n";
  }

  /** Anthropic's API has no per-request metrics: {@code engineView} is not sent. */
  @Override
  public String closing(RequestMetrics engineView) {
    StringBuilder out = new StringBuilder(512);
    blockStop(out, plan.reasoning(plan.chunks() - 1));
    event(out, "message_delta")
        .append("{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"")
        .append(plan.lengthCapped() ? "max_tokens" : "end_turn")
        .append("\",\"stop_sequence\":null},\"usage\":");
    if (plan.cachedTokens() == null) {
      out.append('{');
    } else {
      inputUsage(out);
    }
    out.append("\"output_tokens\":").append(plan.outputTokens()).append("}}\n\n");
    return event(out, "message_stop").append("{\"type\":\"message_stop\"}\n\n").toString();
  }

  /**
   * A usage object's opening and its input counts, each followed by a comma: {@code input_tokens}
   * (the prompt, or without a cache's tokens), then the cache's two counts when there is a cache.
   */
  private StringBuilder inputUsage(StringBuilder out) {
    Integer cached = plan.cachedTokens();
    out.append("{\"input_tokens\":")
        .append(cached == null ? plan.promptTokens() : plan.promptTokens() - cached)
        .append(',');
    if (cached != null) {
      out.append("\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":")
          .append(cached)
          .append(',');
    }
    return out;
  }

  private void blockStart(StringBuilder out, boolean thinking) {
    event(out, "content_block_start")
        .append("{\"type\":\"content_block_start\",\"index\":")
        .append(block)
        .append(
            thinking
                ? ",\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
                : ",\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
  }

  private void blockStop(StringBuilder out, boolean thinking) {
    if (thinking) {
      event(out, "content_block_delta")
          .append("{\"type\":\"content_block_delta\",\"index\":")
          .append(block)
          .append(",\"delta\":{\"type\":\"signature_delta\",\"signature\":\"c2ltdWxhdGVk\"}}\n\n");
    }
    event(out, "content_block_stop")
        .append("{\"type\":\"content_block_stop\",\"index\":")
        .append(block)
        .append("}\n\n");
  }

  private static StringBuilder event(StringBuilder out, String name) {
    return out.append("event: ").append(name).append("\ndata: ");
  }
}
