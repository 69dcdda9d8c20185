package io.tpotstream.aggregator.offline;

import io.tpotstream.common.Windows;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** How {@code tpot stats} prints summaries. */
public enum SummaryFormat {
  /** Aligned columns for a terminal. */
  TABLE,
  /** One summary per line, exactly the aggregator's JSON. */
  JSON,
  /** DESIGN.md's flat sink row, one per series and window, with a header. */
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
    List<String> header =
        new ArrayList<>(List.of("window_start", "window_end", "ts", "series", "model"));
    groupBy.forEach(label -> header.add("label_" + label));
    header.addAll(
        List.of(
            "tpot_count",
            "tpot_mean_ms",
            "tpot_p50_ms",
            "tpot_p90_ms",
            "tpot_p99_ms",
            "tpot_p99_9_ms",
            "tpot_p99_99_ms",
            "tpot_max_ms",
            "ttft_p50_ms",
            "ttft_p90_ms",
            "ttft_p99_ms",
            "ttft_max_ms",
            "request_tpot_p50_ms",
            "request_tpot_p99_ms",
            "requests_started",
            "requests_completed",
            "requests_failed",
            "error_rate",
            "output_tokens",
            "tokens_per_s",
            "late_samples"));
    out.println(String.join(",", header));
    for (WindowSummary s : summaries) {
      List<String> row = new ArrayList<>();
      row.add(s.windowStart());
      row.add(s.windowEnd());
      row.add(Long.toString(s.windowEndMs()));
      row.add(s.series());
      row.add(s.model());
      groupBy.forEach(label -> row.add(s.labels().getOrDefault(label, "")));
      LatencySummary t = s.tpot();
      row.add(Long.toString(t.count()));
      row.add(text(t.meanMs()));
      row.add(text(t.p50Ms()));
      row.add(text(t.p90Ms()));
      row.add(text(t.p99Ms()));
      row.add(text(t.p999Ms()));
      row.add(text(t.p9999Ms()));
      row.add(text(t.maxMs()));
      LatencySummary f = s.ttft();
      row.add(text(f.p50Ms()));
      row.add(text(f.p90Ms()));
      row.add(text(f.p99Ms()));
      row.add(text(f.maxMs()));
      row.add(text(s.requestTpot().p50Ms()));
      row.add(text(s.requestTpot().p99Ms()));
      row.add(Long.toString(s.requests().started()));
      row.add(Long.toString(s.requests().completed()));
      row.add(Long.toString(s.requests().failed()));
      row.add(text(s.requests().errorRate()));
      row.add(Long.toString(s.outputTokens()));
      row.add(text(s.tokensPerSecond()));
      row.add(Long.toString(s.lateSamples()));
      out.println(String.join(",", row.stream().map(SummaryFormat::csvField).toList()));
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

  private static String csvField(String value) {
    if (value.contains(",") || value.contains("\"") || value.contains("\n")) {
      return "\"" + value.replace("\"", "\"\"") + "\"";
    }
    return value;
  }
}
