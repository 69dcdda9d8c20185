package io.tpotstream.sink.compare;

import io.tpotstream.sink.report.Charts;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code tpot compare --html}: one self-contained page with the table and, per series, both runs'
 * percentile curves of TPOT and TTFT (x: the percentile on a "nines" scale, so p50, p90, p99, p99.9
 * are evenly spaced; y: ms on a log scale).
 */
public final class CompareHtml {
  static final int WIDTH = 900;
  static final int HEIGHT = 450;
  private static final Color A = new Color(0x1f77b4);
  private static final Color B = new Color(0xd62728);

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
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<title>tpot compare</title>\n<style>")
        .append("body{font-family:sans-serif;margin:2em;color:#222}")
        .append("table{border-collapse:collapse;margin:1em 0}")
        .append("th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}")
        .append("th{background:#f4f4f4}td.l{text-align:left;font-family:monospace}")
        .append("td.yes{background:#fde2e2}img{max-width:100%;height:auto}.note{color:#666}")
        .append("</style>\n</head>\n<body>\n<h1>tpot compare</h1>\n<p>A: ")
        .append(escape(CompareTable.describe(r.a())))
        .append("<br>B: ")
        .append(escape(CompareTable.describe(r.b())))
        .append("</p>\n<p class=\"note\">")
        .append(escape(r.method()))
        .append(", ")
        .append(r.resamples())
        .append(" resamples; the interval is the ")
        .append(r.confidence().movePointRight(2).stripTrailingZeros().toPlainString())
        .append("% interval of B − A, and a difference is beyond noise when it leaves out 0.</p>\n")
        .append("<table id=\"comparison\">\n<tr><th>series</th><th>metric</th><th>stat</th>")
        .append("<th>A ms</th><th>B ms</th><th>B − A ms</th><th>change</th><th>interval</th>")
        .append("<th>beyond noise</th></tr>\n");
    for (CompareResult.SeriesComparison s : r.series()) {
      if (s.onlyIn() != null) {
        html.append("<tr><td class=\"l\">")
            .append(escape(s.series()))
            .append("</td><td colspan=\"8\" class=\"l\">only in ")
            .append(s.onlyIn().toUpperCase(java.util.Locale.ROOT))
            .append("</td></tr>\n");
        continue;
      }
      for (CompareResult.StatComparison c : s.stats()) {
        boolean beyond = Boolean.TRUE.equals(c.beyondNoise());
        html.append("<tr><td class=\"l\">")
            .append(escape(s.series()))
            .append("</td><td>")
            .append(c.metric().toUpperCase(java.util.Locale.ROOT))
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
    html.append("</table>\n");
    for (CompareResult.SeriesComparison s : r.series()) {
      if (s.curves() == null) {
        continue;
      }
      html.append("<h2>").append(escape(s.series())).append("</h2>\n");
      for (Map.Entry<String, Map<String, List<BigDecimal[]>>> metric : s.curves().entrySet()) {
        String title = s.series() + ": " + metric.getKey().toUpperCase(java.util.Locale.ROOT);
        html.append("<img src=\"data:image/png;base64,")
            .append(Base64.getEncoder().encodeToString(chart(title, metric.getValue())))
            .append("\" alt=\"")
            .append(escape(title + " percentile curves, A and B"))
            .append("\" width=\"")
            .append(WIDTH)
            .append("\" height=\"")
            .append(HEIGHT)
            .append("\">\n");
      }
    }
    html.append("</body>\n</html>\n");
    return html.toString();
  }

  /** Both sides' percentile curves: x = -log10(1 - p/100) ("nines"), y = ms, log scale. */
  static byte[] chart(String title, Map<String, List<BigDecimal[]>> sides) {
    XYSeriesCollection dataset = new XYSeriesCollection();
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
    int index = 0;
    for (Map.Entry<String, List<BigDecimal[]>> side : sides.entrySet()) {
      XYSeries xy = new XYSeries(side.getKey().toUpperCase(java.util.Locale.ROOT), true, true);
      for (BigDecimal[] point : side.getValue()) {
        double p = point[0].doubleValue();
        double ms = point[1].doubleValue();
        if (ms > 0) {
          xy.add(p >= 100 ? 5.5 : nines(p), ms);
        }
      }
      dataset.addSeries(xy);
      renderer.setSeriesPaint(index, index == 0 ? A : B);
      renderer.setSeriesStroke(index, new BasicStroke(2.0f));
      renderer.setSeriesShape(index, new Ellipse2D.Double(-3, -3, 6, 6));
      index++;
    }
    NumberAxis x = new NumberAxis("percentile (the last point is the maximum)");
    x.setRange(0, 5.6);
    x.setTickUnit(new NumberTickUnit(1, new PercentileFormat()));
    LogarithmicAxis y = new LogarithmicAxis("ms (log scale)");
    y.setStrictValuesFlag(false);
    y.setAllowNegativesFlag(false);
    XYPlot plot = new XYPlot(dataset, x, y, renderer);
    return Charts.render(plot, title, 16, WIDTH, HEIGHT);
  }

  static double nines(double percentile) {
    return -Math.log10(1 - percentile / 100);
  }

  /** Tick labels of the nines axis: 0 → p0, 1 → p90, 2 → p99, 3 → p99.9. */
  private static final class PercentileFormat extends NumberFormat {
    @Override
    public StringBuffer format(double x, StringBuffer to, FieldPosition pos) {
      long n = Math.round(x);
      if (n <= 0) {
        return to.append("p0");
      }
      if (n == 1) {
        return to.append("p90");
      }
      if (n > 5) {
        return to;
      }
      return to.append("p99").append(n > 2 ? "." + "9".repeat((int) n - 2) : "");
    }

    @Override
    public StringBuffer format(long x, StringBuffer to, FieldPosition pos) {
      return format((double) x, to, pos);
    }

    @Override
    public Number parse(String source, ParsePosition pos) {
      return null;
    }
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
