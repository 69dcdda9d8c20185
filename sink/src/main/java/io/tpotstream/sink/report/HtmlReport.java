package io.tpotstream.sink.report;

import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.ClientTouch;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.record.WholeRunTable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * {@code report.html}: one self-contained page (the charts inlined as base64, each linking to its
 * PNG file) with a whole-run table per series.
 */
final class HtmlReport {
  private static final String STYLE =
      "body{font-family:sans-serif;margin:2em;color:#222}"
          + "table{border-collapse:collapse;margin:1em 0}"
          + "th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}"
          + "th{background:#f4f4f4}td.series{text-align:left;font-family:monospace}"
          + "img{max-width:100%;height:auto;border:1px solid #eee}"
          + ".note{color:#666;font-size:90%}";

  private HtmlReport() {}

  /**
   * The page for {@code model}; {@code charts} maps each PNG file name to its title and bytes, in
   * page order.
   */
  static String render(ReportModel model, Map<String, Chart> charts) {
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<title>tpot-stream report</title>\n<style>")
        .append(STYLE)
        .append("</style>\n</head>\n<body>\n<h1>tpot-stream report</h1>\n");
    List<String> names = model.seriesNames();
    html.append("<p>")
        .append(names.size())
        .append(" series, ")
        .append(model.windows())
        .append(" windows.</p>\n");
    html.append("<h2>Whole run per series</h2>\n")
        .append("<p class=\"note\">Latencies in ms. Percentiles come from merging every window's")
        .append(" HdrHistogram, never from averaging window percentiles. Error rate = (failed +")
        .append(" abandoned) / (completed + failed + abandoned).</p>\n");
    html.append("<table id=\"whole-run\">\n<tr><th>series</th><th>from (UTC)</th><th>to (UTC)</th>")
        .append("<th>TPOT count</th><th>TPOT mean</th><th>TPOT p50</th><th>TPOT p90</th>")
        .append("<th>TPOT p99</th><th>TPOT p99.9</th><th>TPOT p99.99</th><th>TPOT max</th>")
        .append("<th>TTFT p50</th><th>TTFT p99</th><th>finished requests</th><th>failed</th>")
        .append("<th>error rate</th><th>output tokens/s</th>")
        .append("<th>client-touched gaps (share of the tail ≥ p99)</th>")
        .append("<th>TPOT p99 / p99.9 / max without the client's lag</th></tr>\n");
    for (String name : names) {
      WindowSummary run = model.wholeRun(name);
      LatencySummary tpot = run.tpot();
      LatencySummary ttft = run.ttft();
      RequestCounts requests = run.requests();
      html.append("<tr>");
      cell(html, "series", name);
      cell(html, null, run.windowStart());
      cell(html, null, run.windowEnd());
      cell(html, null, Long.toString(tpot.count()));
      List<BigDecimal> columns = new ArrayList<>(tpot.articleMs());
      columns.add(ttft.p50Ms());
      columns.add(ttft.p99Ms());
      for (BigDecimal ms : columns) {
        cell(html, null, ms == null ? "" : ms.toPlainString());
      }
      cell(html, null, Long.toString(requests.completed() + requests.failed()));
      cell(html, null, Long.toString(requests.failed()));
      cell(html, null, requests.errorRate().movePointRight(2).toPlainString() + "%");
      cell(html, null, run.tokensPerSecond().toPlainString());
      ClientTouch touch = run.clientTouched();
      boolean touched = touch != null && touch.gaps() > 0;
      cell(
          html,
          null,
          touched
              ? touch.gaps()
                  + " ("
                  + touch.tailShare().movePointRight(2).stripTrailingZeros().toPlainString()
                  + "%)"
              : run.clientSuspect() == null ? "" : "0");
      cell(
          html,
          null,
          touched
              ? WholeRunTable.ms(touch.tpotWithout().p99Ms())
                  + " / "
                  + WholeRunTable.ms(touch.tpotWithout().p999Ms())
                  + " / "
                  + WholeRunTable.ms(touch.tpotWithout().maxMs())
              : "");
      html.append("</tr>\n");
    }
    html.append("</table>\n");
    for (Map.Entry<String, Chart> chart : charts.entrySet()) {
      String file = escape(chart.getKey());
      html.append("<h2>")
          .append(escape(chart.getValue().title()))
          .append("</h2>\n<a href=\"")
          .append(file)
          .append("\"><img src=\"data:image/png;base64,")
          .append(Base64.getEncoder().encodeToString(chart.getValue().png()))
          .append("\" alt=\"")
          .append(escape(chart.getValue().title()))
          .append("\" width=\"")
          .append(Charts.WIDTH)
          .append("\" height=\"")
          .append(Charts.HEIGHT)
          .append("\"></a>\n");
    }
    html.append("</body>\n</html>\n");
    return html.toString();
  }

  /** One rendered chart. */
  record Chart(String title, byte[] png) {}

  private static void cell(StringBuilder html, String cssClass, String text) {
    html.append(cssClass == null ? "<td>" : "<td class=\"" + cssClass + "\">")
        .append(escape(text))
        .append("</td>");
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
