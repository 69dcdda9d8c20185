package io.tpotstream.sink.report;

import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.ClientTouch;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.record.EngineRun;
import io.tpotstream.sink.record.WholeRunTable;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code report.html}: one self-contained page ({@code report.html} template) with a whole-run
 * table per series, the engine's view beside the client's when the producer scraped one, the
 * interactive charts ({@link ReportChartData}, drawn in the page by uPlot) and links to the PNG
 * files of the same charts.
 */
final class HtmlReport {
  private HtmlReport() {}

  /** The page for {@code model}; {@code pngs} maps each PNG file name to its title, in order. */
  static String render(ReportModel model, Map<String, String> pngs) {
    List<String> names = model.seriesNames();
    StringBuilder html = new StringBuilder();
    html.append("<table id=\"whole-run\">\n<tr><th>series</th><th>from (UTC)</th><th>to (UTC)</th>")
        .append("<th>TPOT count</th><th>TPOT mean</th><th>TPOT p50</th><th>TPOT p90</th>")
        .append("<th>TPOT p99</th><th>TPOT p99.9</th><th>TPOT p99.99</th><th>TPOT max</th>")
        .append("<th>TTFT p50</th><th>TTFT p99</th><th>finished requests</th><th>failed</th>")
        .append("<th>error rate</th><th>output tokens/s</th>")
        .append("<th>client-touched gaps (share of the tail ≥ p99)</th>")
        .append("<th>TPOT p99 / p99.9 / max without the client's lag</th>")
        .append("<th>prefix cache hit rate (requests that reported it)</th></tr>\n");
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
      PromptCache cache = run.promptCache();
      cell(
          html,
          null,
          cache == null
              ? ""
              : WholeRunTable.percent(cache.hitRate()) + " (" + cache.requests() + ")");
      html.append("</tr>\n");
    }
    html.append("</table>");
    List<String> links = new ArrayList<>();
    pngs.forEach(
        (file, title) ->
            links.add(
                "<a href=\""
                    + PageTemplate.escape(file)
                    + "\" title=\""
                    + PageTemplate.escape(title)
                    + "\">"
                    + PageTemplate.escape(file)
                    + "</a>"));
    return PageTemplate.fill(
        "report.html",
        Map.of(
            "series-count", Integer.toString(names.size()),
            "window-count", Integer.toString(model.windows()),
            "table", html.toString(),
            "engine", engine(model),
            "png-links", String.join(", ", links)),
        ReportChartData.of(model));
  }

  /**
   * The "Engine vs client" section, when the producer scraped an inference engine: per series the
   * windows with the engine's view, scrapes and failures, and the time added outside the engine at
   * p99 as the range of the windows' intervals; empty otherwise.
   */
  static String engine(ReportModel model) {
    Map<String, EngineRun> engines = model.engines();
    if (engines.isEmpty()) {
      return "";
    }
    StringBuilder html = new StringBuilder("<h2>Engine vs client</h2>\n");
    html.append("<p class=\"note\">The inference engine's own view, as the producer scraped its")
        .append(
            " metrics. Its histograms are coarse, so each of its percentiles is the bucket that")
        .append(" holds it, and the time added outside the engine (the client's percentile minus")
        .append(" the engine's bucket) is an interval: a bound, not a value. Over a run, the range")
        .append(
            " runs from the lowest to the highest bound of the windows' intervals; a lower bound")
        .append(" above 0 proves time spent between the engine and the client (a gateway or proxy,")
        .append(" the network, the client). The charts below show them per window.</p>\n")
        .append("<table id=\"engine\">\n<tr><th>series</th>")
        .append("<th>windows with the engine's view</th><th>scrapes</th><th>failed scrapes</th>")
        .append(
            "<th>TPOT p99 outside the engine (ms)</th><th>TTFT p99 outside the engine (ms)</th>")
        .append("<th>windows with TPOT p99 outside the engine proven (lower bound &gt; 0)</th>")
        .append("</tr>\n");
    engines.forEach(
        (name, e) -> {
          html.append("<tr>");
          cell(html, "series", name);
          cell(html, null, Long.toString(e.windows()));
          cell(html, null, Long.toString(e.scrapes()));
          cell(html, null, Long.toString(e.failedScrapes()));
          cell(
              html,
              null,
              e.tpotP99Outside() == null ? "" : WholeRunTable.interval(e.tpotP99Outside()));
          cell(
              html,
              null,
              e.ttftP99Outside() == null ? "" : WholeRunTable.interval(e.ttftP99Outside()));
          cell(html, null, Long.toString(e.tpotOutsideProvenWindows()));
          html.append("</tr>\n");
        });
    return html.append("</table>").toString();
  }

  private static void cell(StringBuilder html, String cssClass, String text) {
    html.append(cssClass == null ? "<td>" : "<td class=\"" + cssClass + "\">")
        .append(PageTemplate.escape(text))
        .append("</td>");
  }
}
