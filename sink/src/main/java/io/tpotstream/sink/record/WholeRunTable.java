package io.tpotstream.sink.record;

import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The seed article's table over a whole run, one row per series, from merged window histograms
 * (never averaged window percentiles): what {@code tpot run} and {@code tpot demo} print at the end
 * and {@code tpot report} prints beside its charts.
 */
public final class WholeRunTable {
  private static final String ROW = "%-22s %9s %8s %8s %8s %8s %8s %8s %8s  %9s %9s %8s %10s%n";

  private WholeRunTable() {}

  private static final String CACHE_ROW = "%-22s %9s %14s %14s %9s%n";

  private static final String ENGINE_ROW = "%-22s %8s %8s %8s  %-18s %-18s %s%n";

  /**
   * The heading line, the column names and one row per series of {@code wholeRun}; then, when a
   * series' requests reported the server's prefix cache, a second table of its hit rate; then, when
   * {@code engines} (by series) holds the engine's view of a series of {@code wholeRun}, a table of
   * it ({@link EngineRun}: the range of the windows' intervals, not one of the run's own).
   */
  public static String format(List<WindowSummary> wholeRun, Map<String, EngineRun> engines) {
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
    List<WindowSummary> scraped =
        wholeRun.stream().filter(s -> engines.containsKey(s.series())).toList();
    if (!scraped.isEmpty()) {
      t.append(
          "Engine as the producer scraped it; time added outside the engine at p99, ms, from the"
              + " lowest to the highest bound of the windows' intervals:\n");
      t.append(
          String.format(
              Locale.ROOT,
              ENGINE_ROW,
              "series",
              "windows",
              "scrapes",
              "failed",
              "TPOT p99 outside",
              "TTFT p99 outside",
              "TPOT outside > 0 proven in"));
      for (WindowSummary s : scraped) {
        EngineRun e = engines.get(s.series());
        t.append(
            String.format(
                Locale.ROOT,
                ENGINE_ROW,
                s.series(),
                e.windows(),
                e.scrapes(),
                e.failedScrapes(),
                e.tpotP99Outside() == null ? "-" : interval(e.tpotP99Outside()),
                e.ttftP99Outside() == null ? "-" : interval(e.ttftP99Outside()),
                e.tpotOutsideProvenWindows()
                    + (e.tpotOutsideProvenWindows() == 1 ? " window" : " windows")));
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
