package io.tpotstream.sink.compare;

import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.stats.BucketCounts;
import io.tpotstream.common.stats.LatencyHistogram;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Compares two runs per series: whole-run TPOT and TTFT percentiles of A and B (from merged window
 * histograms, as the report computes them), B − A, and a bootstrap interval of B − A: over requests
 * when both sides are exports, over windows otherwise. When a side is a summaries CSV (percentiles
 * per window, no histograms), both sides are compared on the median over windows of each window's
 * percentile, bootstrapped over windows, and the output says so.
 */
public final class Comparison {
  /** The points of the percentile curves in the JSON and the HTML page (100 = the maximum). */
  static final double[] CURVE = {
    0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100
  };

  /** Settings: how many resamples, the interval's confidence, the seed (results repeat). */
  public record Settings(int resamples, double confidence, long seed) {
    public static Settings defaults() {
      return new Settings(1000, 0.95, 1);
    }

    public Settings {
      if (resamples < 10) {
        throw new IllegalArgumentException("--resamples must be at least 10, got " + resamples);
      }
      if (!(confidence > 0 && confidence < 1)) {
        throw new IllegalArgumentException(
            "--confidence must be between 0 and 1 (e.g. 0.95), got " + confidence);
      }
    }
  }

  private Comparison() {}

  public static CompareResult compare(RunData a, RunData b, Settings settings) {
    return compare(a, b, settings, Progress.quiet());
  }

  /**
   * Same, counting the resamples on {@code progress} (phase "resampling", its total the resamples
   * of every interval estimated).
   */
  public static CompareResult compare(RunData a, RunData b, Settings settings, Progress progress) {
    boolean windowValues = a.kind() == RunData.Kind.CSV || b.kind() == RunData.Kind.CSV;
    boolean requests = a.kind() == RunData.Kind.EXPORT && b.kind() == RunData.Kind.EXPORT;
    String unit = windowValues ? "window values" : requests ? "requests" : "windows";
    Bootstrap bootstrap =
        new Bootstrap(settings.resamples(), settings.confidence(), settings.seed(), progress);
    List<CompareResult.SeriesComparison> series = new ArrayList<>();
    TreeSet<String> names = new TreeSet<>(a.seriesNames());
    names.addAll(b.seriesNames());
    long intervals = 0;
    for (String name : names) {
      if (a.series(name) != null && b.series(name) != null) {
        for (String metric : CompareStat.METRICS) {
          intervals += windowValues ? CompareStat.of(metric).size() : 1;
        }
      }
    }
    progress.phase("resampling", "resamples", intervals * settings.resamples());
    for (String name : names) {
      RunData.SeriesData da = a.series(name);
      RunData.SeriesData db = b.series(name);
      if (da == null || db == null) {
        series.add(
            new CompareResult.SeriesComparison(
                name, da == null ? "b" : "a", null, List.of(), null));
        continue;
      }
      List<CompareResult.StatComparison> stats = new ArrayList<>();
      Map<String, Map<String, List<BigDecimal[]>>> curves = new LinkedHashMap<>();
      for (String metric : CompareStat.METRICS) {
        List<CompareStat> metricStats = CompareStat.of(metric);
        if (windowValues) {
          for (CompareStat stat : metricStats) {
            List<BucketCounts> ua = da.windowValueUnits(stat);
            List<BucketCounts> ub = db.windowValueUnits(stat);
            Bootstrap.Interval[] in = bootstrap.intervals(ua, ub, new double[] {50.0});
            stats.add(stat(stat, median(ua), median(ub), in == null ? null : in[0]));
          }
          curves.put(metric, windowValueCurves(da, db, metricStats));
        } else {
          double[] percentiles =
              metricStats.stream().mapToDouble(CompareStat::percentile).toArray();
          List<BucketCounts> ua = requests ? da.requestUnits(metric) : da.windowUnits(metric);
          List<BucketCounts> ub = requests ? db.requestUnits(metric) : db.windowUnits(metric);
          Bootstrap.Interval[] in = bootstrap.intervals(ua, ub, percentiles);
          LatencyHistogram ha = da.merged(metric);
          LatencyHistogram hb = db.merged(metric);
          for (int k = 0; k < metricStats.size(); k++) {
            stats.add(
                stat(
                    metricStats.get(k),
                    value(ha, percentiles[k]),
                    value(hb, percentiles[k]),
                    in == null ? null : in[k]));
          }
          Map<String, List<BigDecimal[]>> sides = new LinkedHashMap<>();
          sides.put("a", curve(ha));
          sides.put("b", curve(hb));
          curves.put(metric, sides);
        }
      }
      series.add(new CompareResult.SeriesComparison(name, null, unit, stats, curves));
    }
    String method =
        windowValues
            ? "median over windows of each window's percentile (a summaries CSV has no"
                + " histograms), bootstrap over windows"
            : "whole-run percentiles from merged histograms, bootstrap over " + unit;
    return new CompareResult(
        side(a),
        side(b),
        method,
        settings.resamples(),
        BigDecimal.valueOf(settings.confidence()),
        series);
  }

  private static CompareResult.Side side(RunData run) {
    return new CompareResult.Side(
        run.source(),
        run.kind().text(),
        run.windows(),
        run.kind() == RunData.Kind.EXPORT ? run.requests() : null,
        List.copyOf(run.seriesNames()));
  }

  private static CompareResult.StatComparison stat(
      CompareStat stat, BigDecimal a, BigDecimal b, Bootstrap.Interval interval) {
    BigDecimal diff = a == null || b == null ? null : b.subtract(a);
    BigDecimal change =
        diff == null || a.signum() == 0
            ? null
            : diff.movePointRight(2).divide(a, 1, RoundingMode.HALF_EVEN);
    return new CompareResult.StatComparison(
        stat.metric(),
        stat.name(),
        a,
        b,
        diff,
        change,
        interval == null ? null : LatencyHistogram.ms(interval.lowMicros()),
        interval == null ? null : LatencyHistogram.ms(interval.highMicros()),
        interval == null || diff == null ? null : interval.excludesZero());
  }

  private static BigDecimal value(LatencyHistogram h, double percentile) {
    return h.count() == 0 ? null : LatencyHistogram.ms(h.percentileMicros(percentile));
  }

  private static BigDecimal median(List<BucketCounts> values) {
    if (values.isEmpty()) {
      return null;
    }
    LatencyHistogram h = new LatencyHistogram();
    values.forEach(v -> v.addTo(h));
    return LatencyHistogram.ms(h.percentileMicros(50.0));
  }

  private static List<BigDecimal[]> curve(LatencyHistogram h) {
    List<BigDecimal[]> points = new ArrayList<>();
    if (h.count() == 0) {
      return points;
    }
    for (double p : CURVE) {
      long micros = p == 100 ? h.maxMicros() : h.percentileMicros(p);
      points.add(new BigDecimal[] {BigDecimal.valueOf(p), LatencyHistogram.ms(micros)});
    }
    return points;
  }

  private static Map<String, List<BigDecimal[]>> windowValueCurves(
      RunData.SeriesData da, RunData.SeriesData db, List<CompareStat> stats) {
    Map<String, List<BigDecimal[]>> sides = new LinkedHashMap<>();
    for (String side : List.of("a", "b")) {
      RunData.SeriesData d = side.equals("a") ? da : db;
      List<BigDecimal[]> points = new ArrayList<>();
      for (CompareStat stat : stats) {
        BigDecimal m = median(d.windowValueUnits(stat));
        if (m != null) {
          points.add(new BigDecimal[] {BigDecimal.valueOf(stat.percentile()), m});
        }
      }
      sides.put(side, points);
    }
    return sides;
  }
}
