package io.tpotstream.sink.record;

import io.tpotstream.common.Windows;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.file.Csv;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.List;
import java.util.Locale;

/**
 * How {@code tpot stats} prints summaries: the table, the aggregator's JSON, or the sink's CSV row
 * (the same columns and cells as the sink's CSV file).
 */
public enum SummaryFormat {
  /** Aligned columns for a terminal. */
  TABLE,
  /** One summary per line, exactly the aggregator's JSON. */
  JSON,
  /** The sink's flat row ({@link FlatRecord}), one per series and window, with a header. */
  CSV;

  /** Parses "table", "json" or "csv". */
  public static SummaryFormat of(String name) {
    try {
      return valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown format '" + name + "': use table, json or csv");
    }
  }

  /** Writes {@code summaries}; {@code groupBy} names the label columns of the CSV. */
  public void write(List<WindowSummary> summaries, List<String> groupBy, PrintWriter out) {
    switch (this) {
      case JSON -> summaries.forEach(s -> out.println(WindowSummaryCodec.encodeToString(s)));
      case CSV -> csv(summaries, groupBy, out);
      case TABLE -> table(summaries, out);
    }
    out.flush();
  }

  private static void csv(List<WindowSummary> summaries, List<String> groupBy, PrintWriter out) {
    out.println(Csv.line(FlatRecord.columns(groupBy)));
    for (WindowSummary s : summaries) {
      out.println(Csv.line(FlatRecord.of(s).cells(groupBy)));
    }
  }

  private static void table(List<WindowSummary> summaries, PrintWriter out) {
    if (summaries.isEmpty()) {
      out.println("no windows: the file holds no request events");
      return;
    }
    int seriesWidth = "series".length();
    for (WindowSummary s : summaries) {
      seriesWidth = Math.max(seriesWidth, s.series().length());
    }
    String row =
        "%-20s  %-" + seriesWidth + "s  %8s %9s %9s %9s %9s %9s %9s %9s  %9s %9s  %6s %6s %7s%n";
    out.printf(
        row,
        "window start",
        "series",
        "tpot n",
        "mean ms",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "p99.9 ms",
        "p99.99 ms",
        "max ms",
        "ttft p50",
        "ttft p99",
        "done",
        "failed",
        "late");
    for (WindowSummary s : summaries) {
      LatencySummary t = s.tpot();
      out.printf(
          row,
          Windows.iso(s.windowStartMs()),
          s.series(),
          t.count(),
          text(t.meanMs()),
          text(t.p50Ms()),
          text(t.p90Ms()),
          text(t.p99Ms()),
          text(t.p999Ms()),
          text(t.p9999Ms()),
          text(t.maxMs()),
          text(s.ttft().p50Ms()),
          text(s.ttft().p99Ms()),
          s.requests().completed(),
          s.requests().failed(),
          s.lateSamples());
    }
  }

  private static String text(BigDecimal value) {
    return value == null ? "" : value.toPlainString();
  }
}
