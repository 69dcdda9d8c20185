package io.tpotstream.common.stats;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;

/**
 * Count, mean, min, p50, p90, p99, p99.9, p99.99 and max of a latency histogram, in ms with three
 * decimals (integer µs). Every ms field is null (omitted) when the count is 0.
 */
@JsonPropertyOrder({
  "count", "meanMs", "minMs", "p50Ms", "p90Ms", "p99Ms", "p999Ms", "p9999Ms", "maxMs"
})
public record LatencySummary(
    long count,
    BigDecimal meanMs,
    BigDecimal minMs,
    BigDecimal p50Ms,
    BigDecimal p90Ms,
    BigDecimal p99Ms,
    BigDecimal p999Ms,
    BigDecimal p9999Ms,
    BigDecimal maxMs) {

  public static final LatencySummary EMPTY =
      new LatencySummary(0, null, null, null, null, null, null, null, null);

  /**
   * The article's columns: mean, p50, p90, p99, p99.9, p99.99 and max in ms (nulls when the count
   * is 0).
   */
  public List<BigDecimal> articleMs() {
    return Arrays.asList(meanMs, p50Ms, p90Ms, p99Ms, p999Ms, p9999Ms, maxMs);
  }
}
