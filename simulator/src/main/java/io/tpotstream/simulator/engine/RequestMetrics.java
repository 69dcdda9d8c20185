package io.tpotstream.simulator.engine;

import io.tpotstream.simulator.plan.ResponsePlan;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * One request as its engine saw it, the {@code "metrics"} object of vLLM's per-request metrics
 * ({@code --enable-per-request-metrics}): its TTFT without the gateway's delay, the time from its
 * first chunk to its last, the wait before its prefill, the mean gap and the output rate.
 *
 * @param ttftNs the engine's first chunk minus the request's arrival
 * @param generationNs the engine's last chunk minus its first (0 for one chunk)
 * @param queueNs the wait before prefill (0: the simulator has no queue)
 * @param chunks output chunks
 * @param completionTokens output tokens
 */
public record RequestMetrics(
    long ttftNs, long generationNs, long queueNs, int chunks, int completionTokens) {

  public RequestMetrics {
    ttftNs = Math.max(0, ttftNs);
    generationNs = Math.max(0, generationNs);
    queueNs = Math.max(0, queueNs);
  }

  /**
   * A non-streamed answer's: nothing is sent before its body, so the engine's instants are its
   * plan's (its TTFT without the gateway's delay, then each planned gap).
   */
  public static RequestMetrics planned(ResponsePlan plan) {
    long ttftNs = plan.waitNs(0) - plan.gatewayDelayNs();
    long generationNs = plan.totalWaitNs() - plan.waitNs(0);
    return new RequestMetrics(ttftNs, generationNs, 0, plan.chunks(), plan.outputTokens());
  }

  /**
   * Appends the JSON object, numbers in ms with at most 3 decimals: {@code
   * {"time_to_first_token_ms":85.2,"generation_time_ms":1240.5,"queue_time_ms":0,
   * "mean_itl_ms":9.1,"tokens_per_second":103.2}}; {@code mean_itl_ms} is left out for one chunk,
   * {@code tokens_per_second} when the generation took no time.
   */
  public StringBuilder appendJson(StringBuilder out) {
    out.append("{\"time_to_first_token_ms\":").append(ms(ttftNs));
    out.append(",\"generation_time_ms\":").append(ms(generationNs));
    out.append(",\"queue_time_ms\":").append(ms(queueNs));
    if (chunks > 1) {
      out.append(",\"mean_itl_ms\":")
          .append(
              text(
                  BigDecimal.valueOf(generationNs)
                      .divide(
                          BigDecimal.valueOf(1_000_000L * (chunks - 1)), 3, RoundingMode.HALF_UP)));
    }
    if (generationNs > 0) {
      out.append(",\"tokens_per_second\":")
          .append(
              text(
                  BigDecimal.valueOf(completionTokens * 1_000_000_000L)
                      .divide(BigDecimal.valueOf(generationNs), 3, RoundingMode.HALF_UP)));
    }
    return out.append('}');
  }

  /** {@link #appendJson} as a string. */
  public String json() {
    return appendJson(new StringBuilder(160)).toString();
  }

  private static String ms(long ns) {
    return text(BigDecimal.valueOf(ns, 6).setScale(3, RoundingMode.HALF_UP));
  }

  private static String text(BigDecimal value) {
    return value.stripTrailingZeros().toPlainString();
  }
}
