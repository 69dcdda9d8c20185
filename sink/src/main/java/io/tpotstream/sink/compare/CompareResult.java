package io.tpotstream.sink.compare;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * What {@code tpot compare} found, as its JSON output: both sides, and per series each statistic of
 * A and B, the difference B − A with its bootstrap interval, and whether the interval leaves out 0
 * (the difference is beyond the run-to-run noise the data shows).
 *
 * @param method how the noise was estimated (bootstrap over windows, requests, or window values)
 * @param confidence of the interval, e.g. 0.95
 */
@JsonPropertyOrder({"a", "b", "method", "resamples", "confidence", "series"})
public record CompareResult(
    Side a,
    Side b,
    String method,
    int resamples,
    BigDecimal confidence,
    List<SeriesComparison> series) {

  /** One input. */
  @JsonPropertyOrder({"source", "kind", "windows", "requests", "series"})
  public record Side(String source, String kind, int windows, Long requests, List<String> series) {}

  /**
   * One series.
   *
   * @param onlyIn "a" or "b" when the series is in one run only (then no statistics)
   * @param unit what was resampled for this series: windows, requests or window values
   * @param curves per metric ({@code tpot}, {@code ttft}) and side ({@code a}, {@code b}): points
   *     [percentile, ms] of the whole run's distribution
   */
  @JsonPropertyOrder({"series", "onlyIn", "unit", "stats", "curves"})
  public record SeriesComparison(
      String series,
      String onlyIn,
      String unit,
      List<StatComparison> stats,
      Map<String, Map<String, List<BigDecimal[]>>> curves) {}

  /**
   * One statistic: A's and B's values, B − A, its relative change, the bootstrap interval of B − A,
   * and whether that interval leaves out 0 (null when there were too few units to resample).
   */
  @JsonPropertyOrder({
    "metric",
    "stat",
    "aMs",
    "bMs",
    "diffMs",
    "changePercent",
    "lowMs",
    "highMs",
    "beyondNoise"
  })
  public record StatComparison(
      String metric,
      String stat,
      BigDecimal aMs,
      BigDecimal bMs,
      BigDecimal diffMs,
      BigDecimal changePercent,
      BigDecimal lowMs,
      BigDecimal highMs,
      Boolean beyondNoise) {}
}
