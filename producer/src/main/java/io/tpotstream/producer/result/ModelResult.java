package io.tpotstream.producer.result;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowStats;
import java.math.BigDecimal;
import java.util.SortedMap;

/**
 * One model's measurements over a run, from the producer's own timestamps. Histograms are in µs
 * (the statistics core); {@code tpot} holds the per-chunk gaps (a k-token chunk gives k samples of
 * gap/k), {@code ttft} the wait for the first token chunk, {@code e2e} the whole request, {@code
 * scheduleLag} open-loop lateness.
 *
 * @param tooShort completed requests with fewer than 2 token chunks (no TPOT sample)
 * @param errors failed requests by error class
 * @param outputTokens completion tokens reported by the API, else token chunks
 * @param stage the sweep stage these requests belong to, or null without a sweep
 * @param stats everything above as the statistics core's accumulator (for SLOs and goodput)
 * @param asked requests whose output length a trace asked for
 * @param endedShort of those, completed ones that had fewer output tokens than asked
 * @param lastFailure what the latest failed request's error said (where, why, what to check), or
 *     null when none failed
 */
public record ModelResult(
    String model,
    LatencyHistogram tpot,
    LatencyHistogram ttft,
    LatencyHistogram requestTpot,
    LatencyHistogram e2e,
    LatencyHistogram scheduleLag,
    long started,
    long completed,
    long failed,
    long tooShort,
    SortedMap<String, Long> errors,
    long outputTokens,
    String stage,
    WindowStats stats,
    long asked,
    long endedShort,
    String lastFailure) {

  /** Failed over finished requests, 4 decimals (0 when none finished). */
  public BigDecimal errorRate() {
    return LatencyHistogram.ratio(failed, completed + failed, 4);
  }
}
