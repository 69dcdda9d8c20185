package io.tpotstream.simulator.api;

import io.tpotstream.simulator.engine.RequestMetrics;
import io.tpotstream.simulator.plan.ResponsePlan;

/**
 * OpenAI chat-completion chunks: a role-only chunk, one chunk per output chunk ({@code content} or
 * {@code reasoning_content}), a chunk with the {@code finish_reason}, a usage chunk with {@code
 * choices: []} when {@code include_usage}, and {@code data: [DONE]}. With {@code
 * continuous_usage_stats} every chunk also carries {@code usage} whose {@code completion_tokens}
 * counts the output so far (vLLM's behaviour). With a prefix cache, the usage chunk's {@code
 * prompt_tokens_details.cached_tokens} says how many prompt tokens it held. With the profile's
 * {@code perRequestMetrics}, the last chunk (the usage chunk, else the finish chunk) carries vLLM's
 * per-request {@code "metrics"} object beside its {@code usage}.
 */
final class OpenAiStreamFormat implements StreamFormat {
  private final ResponsePlan plan;
  private final ChatRequest request;
  private final String prefix;
  private final boolean perRequestMetrics;
  private int tokensSoFar;

  OpenAiStreamFormat(
      ResponsePlan plan,
      ChatRequest request,
      String requestId,
      long createdS,
      boolean perRequestMetrics) {
    this.plan = plan;
    this.request = request;
    this.perRequestMetrics = perRequestMetrics;
    StringBuilder p = new StringBuilder(160).append("data: {\"id\":\"chatcmpl-");
    JsonText.append(p, requestId).append("\",\"object\":\"chat.completion.chunk\",\"created\":");
    p.append(createdS).append(",\"model\":\"");
    JsonText.append(p, request.model()).append("\",\"system_fingerprint\":null,\"choices\":[");
    this.prefix = p.toString();
  }

  @Override
  public String opening() {
    StringBuilder out = new StringBuilder(256).append(prefix);
    out.append("{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}");
    out.append(",\"logprobs\":null,\"finish_reason\":null}]");
    return continuousUsage(out).append("}\n\n").toString();
  }

  @Override
  public String chunk(int seq) {
    tokensSoFar += plan.tokens(seq);
    StringBuilder out = new StringBuilder(256).append(prefix);
    out.append("{\"index\":0,\"delta\":{\"")
        .append(plan.reasoning(seq) ? "reasoning_content" : "content")
        .append("\":\"");
    JsonText.append(out, plan.text(seq));
    out.append("\"},\"logprobs\":null,\"finish_reason\":null}]");
    return continuousUsage(out).append("}\n\n").toString();
  }

  @Override
  public String malformedLine() {
    return prefix + "{\"index\":0,\"delta\":{\"content\":\"\n\n";
  }

  @Override
  public String closing(RequestMetrics engineView) {
    StringBuilder out = new StringBuilder(512).append(prefix);
    out.append("{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"")
        .append(plan.lengthCapped() ? "length" : "stop")
        .append("\"}]");
    continuousUsage(out);
    if (!request.includeUsage()) {
      metrics(out, engineView);
    }
    out.append("}\n\n");
    if (request.includeUsage()) {
      out.append(prefix).append("],");
      usage(out, plan.outputTokens(), true);
      metrics(out, engineView).append("}\n\n");
    }
    return out.append("data: [DONE]\n\n").toString();
  }

  /** {@code ,"metrics":{...}} when the profile asks for per-request metrics. */
  private StringBuilder metrics(StringBuilder out, RequestMetrics engineView) {
    if (perRequestMetrics) {
      engineView.appendJson(out.append(",\"metrics\":"));
    }
    return out;
  }

  private StringBuilder continuousUsage(StringBuilder out) {
    if (request.continuousUsage()) {
      usage(out.append(','), tokensSoFar, false);
    }
    return out;
  }

  private StringBuilder usage(StringBuilder out, int completionTokens, boolean details) {
    out.append("\"usage\":{\"prompt_tokens\":").append(plan.promptTokens());
    out.append(",\"completion_tokens\":").append(completionTokens);
    out.append(",\"total_tokens\":").append(plan.promptTokens() + completionTokens);
    if (details && plan.cachedTokens() != null) {
      out.append(",\"prompt_tokens_details\":{\"cached_tokens\":")
          .append(plan.cachedTokens())
          .append('}');
    }
    int reasoningTokens = plan.reasoningTokens();
    if (details && reasoningTokens > 0) {
      out.append(",\"completion_tokens_details\":{\"reasoning_tokens\":")
          .append(reasoningTokens)
          .append('}');
    }
    return out.append('}');
  }
}
