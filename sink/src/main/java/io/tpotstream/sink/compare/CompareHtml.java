package io.tpotstream.sink.compare;

import io.tpotstream.sink.report.ChartData;
import io.tpotstream.sink.report.PageTemplate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code tpot compare --html}: one self-contained page ({@code compare.html} template of the report
 * package) with the table and, per series, both runs' percentile curves of TPOT and TTFT drawn in
 * the page by uPlot (x: the percentile on a "nines" scale, so p50, p90, p99, p99.9 are evenly
 * spaced, the last point the maximum; y: ms on a log scale).
 */
public final class CompareHtml {
  private static final String A = ChartData.color(0);
  private static final String B = ChartData.color(3);

  /** Where the maximum sits on the nines axis (p99.999 is 5). */
  private static final BigDecimal MAX_NINES = new BigDecimal("5.5");

  private CompareHtml() {}

  /** Writes the page to {@code file} (its directory created if missing). */
  public static void write(CompareResult result, Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, render(result), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  static String render(CompareResult r) {
    StringBuilder table = new StringBuilder();
    table
        .append("<table id=\"comparison\">\n<tr><th>series</th><th>metric</th><th>stat</th>")
        .append("<th>A ms</th><th>B ms</th><th>B − A ms</th><th>change</th><th>interval</th>")
        .append("<th>beyond noise</th></tr>\n");
    for (CompareResult.SeriesComparison s : r.series()) {
      if (s.onlyIn() != null) {
        table
            .append("<tr><td class=\"l\">")
            .append(escape(s.series()))
            .append("</td><td colspan=\"8\" class=\"l\">only in ")
            .append(s.onlyIn().toUpperCase(Locale.ROOT))
            .append("</td></tr>\n");
        continue;
      }
      for (CompareResult.StatComparison c : s.stats()) {
        boolean beyond = Boolean.TRUE.equals(c.beyondNoise());
        table
            .append("<tr><td class=\"l\">")
            .append(escape(s.series()))
            .append("</td><td>")
            .append(c.metric().toUpperCase(Locale.ROOT))
            .append("</td><td>")
            .append(c.stat())
            .append("</td><td>")
            .append(CompareTable.plain(c.aMs()))
            .append("</td><td>")
            .append(CompareTable.plain(c.bMs()))
            .append("</td><td>")
            .append(CompareTable.signed(c.diffMs()))
            .append("</td><td>")
            .append(c.changePercent() == null ? "-" : CompareTable.signed(c.changePercent()) + "%")
            .append("</td><td>")
            .append(
                c.lowMs() == null
                    ? "-"
                    : "["
                        + CompareTable.signed(c.lowMs())
                        + ", "
                        + CompareTable.signed(c.highMs())
                        + "]")
            .append(beyond ? "</td><td class=\"yes\">" : "</td><td>")
            .append(c.beyondNoise() == null ? "n/a" : beyond ? "yes" : "no")
            .append("</td></tr>\n");
      }
    }
    table.append("</table>");
    return PageTemplate.fill(
        "compare.html",
        Map.of(
            "side-a", escape(CompareTable.describe(r.a())),
            "side-b", escape(CompareTable.describe(r.b())),
            "method", escape(r.method()),
            "resamples", Integer.toString(r.resamples()),
            "confidence", r.confidence().movePointRight(2).stripTrailingZeros().toPlainString(),
            "table", table.toString()),
        charts(r));
  }

  /** Per series in both runs and metric, A's and B's percentile curves on the nines axis. */
  static ChartData charts(CompareResult r) {
    List<ChartData.Xs> xs = new ArrayList<>();
    List<ChartData.Chart> charts = new ArrayList<>();
    for (CompareResult.SeriesComparison s : r.series()) {
      if (s.curves() == null) {
        continue;
      }
      for (Map.Entry<String, Map<String, List<BigDecimal[]>>> metric : s.curves().entrySet()) {
        // x: the union of both sides' percentiles; each side null where it has no point
        TreeMap<BigDecimal, BigDecimal[]> byX = new TreeMap<>();
        List<String> sides = new ArrayList<>(metric.getValue().keySet());
        for (int side = 0; side < sides.size(); side++) {
          for (BigDecimal[] point : metric.getValue().get(sides.get(side))) {
            byX.computeIfAbsent(nines(point[0]), k -> new BigDecimal[sides.size()])[side] =
                ChartData.ms(point[1]);
          }
        }
        List<ChartData.Line> lines = new ArrayList<>();
        for (int side = 0; side < sides.size(); side++) {
          int at = side;
          lines.add(
              new ChartData.Line(
                  sides.get(side).toUpperCase(Locale.ROOT),
                  at == 0 ? A : B,
                  ChartData.SOLID,
                  byX.values().stream().map(v -> v[at]).toList()));
        }
        String name = metric.getKey().toUpperCase(Locale.ROOT);
        charts.add(
            new ChartData.Chart(
                "c" + charts.size(),
                s.series() + ": " + name + " percentile curves, A and B",
                "nines",
                "percentile (the last point is the maximum)",
                xs.size(),
                name + " (ms)",
                "ms",
                true,
                null,
                null,
                lines));
        xs.add(ChartData.Xs.of(new ArrayList<>(byX.keySet())));
      }
    }
    return new ChartData(xs, charts);
  }

  /** A percentile's place on the nines axis, -log10(1 - p/100) to 3 decimals; p100 (max) at 5.5. */
  static BigDecimal nines(BigDecimal percentile) {
    double p = percentile.doubleValue();
    return p >= 100
        ? MAX_NINES
        : BigDecimal.valueOf(-Math.log10(1 - p / 100))
            .setScale(3, RoundingMode.HALF_EVEN)
            .stripTrailingZeros();
  }

  private static String escape(String text) {
    return PageTemplate.escape(text);
  }
}
