package io.tpotstream.sink.report;

import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The interactive charts of {@code report.html}, the PNGs' lines as data: TPOT and TTFT per window
 * (log axis first), error rate in %, output tokens/s, when the producer scraped an inference engine
 * the engine's TPOT p99 bucket beside the client's p99 and the time added outside the engine, and a
 * sweep's knee. Every time chart shares one x array, the union of the plotted window ends (warm-up
 * windows left out, as in the PNGs).
 */
final class ReportChartData {
  private static final int[] DASHES = {ChartData.SOLID, ChartData.DASHED, ChartData.DOTTED};

  private ReportChartData() {}

  static ChartData of(ReportModel model) {
    List<String> names = model.seriesNames();
    Map<String, List<WindowPoint>> points = new HashMap<>();
    TreeSet<Long> ends = new TreeSet<>();
    for (String name : names) {
      List<WindowPoint> plotted = model.points(name);
      points.put(name, plotted);
      plotted.forEach(p -> ends.add(p.windowEndMs()));
    }
    List<Long> x = new ArrayList<>(ends);
    TimeCharts time = new TimeCharts(names, points, x);
    List<ChartData.Chart> charts = new ArrayList<>();
    charts.add(
        time.chart(
            "tpot",
            "TPOT per window: p50 (solid), p99 (dashed), p99.9 (dotted)",
            "TPOT (ms)",
            "ms",
            true,
            Charts.TPOT_LINES,
            ChartData::ms));
    charts.add(
        time.chart(
            "ttft",
            "TTFT per window: p50 (solid), p99 (dashed)",
            "TTFT (ms)",
            "ms",
            true,
            Charts.TTFT_LINES,
            ChartData::ms));
    charts.add(
        withMarker(
            time.chart(
                "error-rate",
                "Error rate per window: failed + abandoned requests, % of finished",
                "error rate (%)",
                "%",
                false,
                List.of(new Charts.Line("", WindowPoint::errorRate)),
                ChartData::percent)));
    charts.add(
        time.chart(
            "tokens",
            "Output tokens per second per window",
            "output tokens/s",
            "tokens/s",
            false,
            List.of(new Charts.Line("", WindowPoint::tokensPerSecond)),
            ChartData::rate));
    Set<String> scraped = model.engines().keySet();
    if (!scraped.isEmpty()) {
      charts.add(
          time.chart(
              "engine",
              "Engine vs client, TPOT p99 per window: the client's (solid), the engine's bucket"
                  + " from its lower (dashed) to its upper end (dotted)",
              "TPOT p99 (ms)",
              "ms",
              true,
              Charts.ENGINE_LINES,
              ChartData::ms,
              scraped));
      charts.add(
          time.chart(
              "outside-engine",
              "Time added outside the engine at TPOT p99 per window: the client's p99 minus the"
                  + " engine's bucket, between its lower (solid) and upper bound (dashed)",
              "outside the engine (ms)",
              "ms",
              false,
              Charts.OUTSIDE_LINES,
              ChartData::ms,
              scraped));
    }
    List<ChartData.Xs> xs = new ArrayList<>(List.of(ChartData.Xs.ofTimesMs(x)));
    Knee knee = Knee.of(model);
    if (knee != null) {
      charts.add(knee(knee, xs.size()));
      xs.add(ChartData.Xs.of(kneeLoads(knee)));
    }
    return new ChartData(xs, charts);
  }

  private static ChartData.Chart withMarker(ChartData.Chart c) {
    return new ChartData.Chart(
        c.id(),
        c.title(),
        c.x(),
        c.xLabel(),
        c.xs(),
        c.yLabel(),
        c.unit(),
        c.log(),
        new BigDecimal("5"),
        "5 %: percentiles above this error rate are not trustworthy",
        c.lines());
  }

  /** The time charts' common part: the series, their plotted windows, the shared window ends. */
  private record TimeCharts(
      List<String> names, Map<String, List<WindowPoint>> points, List<Long> x) {

    /** One line per series and statistic (a statistic's name after the series when several). */
    ChartData.Chart chart(
        String id,
        String title,
        String yLabel,
        String unit,
        boolean log,
        List<Charts.Line> stats,
        UnaryOperator<BigDecimal> round) {
      return chart(id, title, yLabel, unit, log, stats, round, Set.copyOf(names));
    }

    /** As above, for the series in {@code shown} only, each in the colour it has in every chart. */
    ChartData.Chart chart(
        String id,
        String title,
        String yLabel,
        String unit,
        boolean log,
        List<Charts.Line> stats,
        UnaryOperator<BigDecimal> round,
        Set<String> shown) {
      List<ChartData.Line> lines = new ArrayList<>();
      for (int s = 0; s < names.size(); s++) {
        if (!shown.contains(names.get(s))) {
          continue;
        }
        for (int l = 0; l < stats.size(); l++) {
          Charts.Line stat = stats.get(l);
          String label = stats.size() == 1 ? names.get(s) : names.get(s) + " " + stat.name();
          lines.add(
              new ChartData.Line(
                  label,
                  ChartData.color(s),
                  DASHES[l % DASHES.length],
                  aligned(points.get(names.get(s)), stat.value(), round)));
        }
      }
      return new ChartData.Chart(
          id, title, "time", "window end (UTC)", 0, yLabel, unit, log, null, null, lines);
    }

    /** One value per shared window end: null where the series has no such window or no value. */
    private List<BigDecimal> aligned(
        List<WindowPoint> plotted,
        Function<WindowPoint, BigDecimal> value,
        UnaryOperator<BigDecimal> round) {
      List<BigDecimal> v = new ArrayList<>(x.size());
      int p = 0;
      for (long end : x) {
        if (p < plotted.size() && plotted.get(p).windowEndMs() == end) {
          v.add(round.apply(value.apply(plotted.get(p++))));
        } else {
          v.add(null);
        }
      }
      return v;
    }
  }

  private static List<BigDecimal> kneeLoads(Knee knee) {
    TreeSet<BigDecimal> loads = new TreeSet<>();
    knee.lines().values().forEach(line -> loads.addAll(line.keySet()));
    return loads.stream().map(BigDecimal::stripTrailingZeros).toList();
  }

  /** Per series without the stage: its whole-stage TPOT p50 (solid) and p99 (dashed) by load. */
  private static ChartData.Chart knee(Knee knee, int xs) {
    List<BigDecimal> loads = kneeLoads(knee);
    List<ChartData.Line> lines = new ArrayList<>();
    int s = 0;
    for (Map.Entry<String, SortedMap<BigDecimal, WindowSummary>> line : knee.lines().entrySet()) {
      Map<BigDecimal, WindowSummary> byLoad = new HashMap<>();
      line.getValue().forEach((load, run) -> byLoad.put(load.stripTrailingZeros(), run));
      for (int l = 0; l < 2; l++) {
        List<BigDecimal> v = new ArrayList<>();
        for (BigDecimal load : loads) {
          WindowSummary run = byLoad.get(load);
          LatencySummary tpot = run == null ? null : run.tpot();
          v.add(tpot == null ? null : ChartData.ms(l == 0 ? tpot.p50Ms() : tpot.p99Ms()));
        }
        lines.add(
            new ChartData.Line(
                line.getKey() + (l == 0 ? " p50" : " p99"), ChartData.color(s), DASHES[l], v));
      }
      s++;
    }
    return new ChartData.Chart(
        "knee",
        "TPOT p50 and p99 against load (sweep stages)",
        "number",
        knee.xLabel(),
        xs,
        "TPOT over the whole stage (ms)",
        "ms",
        false,
        null,
        null,
        lines);
  }
}
