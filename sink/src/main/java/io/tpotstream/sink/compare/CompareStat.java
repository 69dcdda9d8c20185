package io.tpotstream.sink.compare;

import io.tpotstream.common.stats.LatencySummary;
import java.math.BigDecimal;
import java.util.List;
import java.util.function.Function;

/**
 * A statistic {@code tpot compare} puts side by side: a percentile of TPOT or TTFT, with the
 * summaries CSV column that holds its per-window value.
 */
record CompareStat(
    String metric,
    String name,
    double percentile,
    String csvColumn,
    Function<LatencySummary, BigDecimal> field) {
  static final String TPOT = "tpot";
  static final String TTFT = "ttft";

  static final List<CompareStat> ALL =
      List.of(
          new CompareStat(TPOT, "p50", 50.0, "tpot_p50_ms", LatencySummary::p50Ms),
          new CompareStat(TPOT, "p90", 90.0, "tpot_p90_ms", LatencySummary::p90Ms),
          new CompareStat(TPOT, "p99", 99.0, "tpot_p99_ms", LatencySummary::p99Ms),
          new CompareStat(TPOT, "p99.9", 99.9, "tpot_p99_9_ms", LatencySummary::p999Ms),
          new CompareStat(TTFT, "p50", 50.0, "ttft_p50_ms", LatencySummary::p50Ms),
          new CompareStat(TTFT, "p90", 90.0, "ttft_p90_ms", LatencySummary::p90Ms),
          new CompareStat(TTFT, "p99", 99.0, "ttft_p99_ms", LatencySummary::p99Ms));

  static final List<String> METRICS = List.of(TPOT, TTFT);

  BigDecimal of(LatencySummary summary) {
    return field.apply(summary);
  }

  static List<CompareStat> of(String metric) {
    return ALL.stream().filter(s -> s.metric().equals(metric)).toList();
  }
}
