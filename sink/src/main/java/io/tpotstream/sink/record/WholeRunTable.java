package io.tpotstream.sink.record;

import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;

/**
 * The seed article's table over a whole run, one row per series, from merged window histograms
 * (never averaged window percentiles): what {@code tpot run} and {@code tpot demo} print at the end
 * and {@code tpot report} prints beside its charts.
 */
public final class WholeRunTable {
  private static final String ROW = "%-22s %9s %8s %8s %8s %8s %8s %8s %8s  %9s %9s %8s %10s%n";

  private WholeRunTable() {}

  private static final String CACHE_ROW = "%-22s %9s %14s %14s %9s%n";

  /**
   * The heading line, the column names and one row per series of {@code wholeRun}; then, when a
   * series' requests reported the server's prefix cache, a second table of its hit rate.
   */
  public static String format(List<WindowSummary> wholeRun) {
    StringBuilder t = new StringBuilder("Whole run, TPOT in ms (merged window histograms):\n");
    t.append(
        String.format(
            Locale.ROOT,
            ROW,
            "series",
            "samples",
            "mean",
            "median",
            "P90",
            "P99",
            "P99.9",
            "P99.99",
            "max",
            "TTFT p50",
            "TTFT p99",
            "errors",
            "error rate"));
    for (WindowSummary s : wholeRun) {
      LatencySummary p = s.tpot();
      t.append(
          String.format(
              Locale.ROOT,
              ROW,
              s.series(),
              p.count(),
              ms(p.meanMs()),
              ms(p.p50Ms()),
              ms(p.p90Ms()),
              ms(p.p99Ms()),
              ms(p.p999Ms()),
              ms(p.p9999Ms()),
              ms(p.maxMs()),
              ms(s.ttft().p50Ms()),
              ms(s.ttft().p99Ms()),
              s.requests().failed(),
              s.requests().errorRate().toPlainString()));
    }
    List<WindowSummary> cached = wholeRun.stream().filter(s -> s.promptCache() != null).toList();
    if (!cached.isEmpty()) {
      t.append(
          "Prefix cache as the server reported it (cached / prompt tokens of those requests):\n");
      t.append(
          String.format(
              Locale.ROOT,
              CACHE_ROW,
              "series",
              "requests",
              "prompt tokens",
              "cached tokens",
              "hit rate"));
      for (WindowSummary s : cached) {
        PromptCache c = s.promptCache();
        t.append(
            String.format(
                Locale.ROOT,
                CACHE_ROW,
                s.series(),
                c.requests(),
                c.promptTokens(),
                c.cachedTokens(),
                percent(c.hitRate())));
      }
    }
    return t.toString();
  }

  /** A ratio as a percentage with two decimals ("12.34%"), "-" when there is none. */
  public static String percent(BigDecimal ratio) {
    return ratio == null
        ? "-"
        : ratio.movePointRight(2).setScale(2, RoundingMode.HALF_EVEN).toPlainString() + "%";
  }

  /**
   * An interval of ms values as {@code [lo, hi]}, two decimals; an unbounded end as {@code (-inf}
   * or {@code inf)}.
   */
  public static String interval(EngineView.Interval interval) {
    return (interval.loMs() == null ? "(-inf" : "[" + ms(interval.loMs()))
        + ", "
        + (interval.hiMs() == null ? "inf)" : ms(interval.hiMs()) + "]");
  }

  /** Milliseconds to two decimals, "-" when there were no samples. */
  public static String ms(BigDecimal value) {
    return value == null ? "-" : value.setScale(2, RoundingMode.HALF_EVEN).toPlainString();
  }
}
