package io.tpotstream.bench;

import io.tpotstream.common.stats.LatencyHistogram;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints each figure as it is measured, with its unit, and keeps the headline figures for a summary
 * table at the end.
 */
public final class BenchReport {
  private record Headline(String benchmark, String figure, String value) {}

  private final PrintStream out;
  private final List<Headline> headlines = new ArrayList<>();
  private String benchmark = "";

  public BenchReport(PrintStream out) {
    this.out = out;
  }

  /** Starts a benchmark's section. */
  public void section(String id, String title) {
    benchmark = id;
    out.println();
    out.println(id + "  " + title);
  }

  /** One measured figure, its value already carrying its unit. */
  public void figure(String label, String valueWithUnit) {
    out.printf(Locale.ROOT, "    %-46s %s%n", label, valueWithUnit);
    out.flush();
  }

  /** A figure that also goes to the summary at the end. */
  public void headline(String label, String valueWithUnit) {
    figure(label, valueWithUnit);
    headlines.add(new Headline(benchmark, label, valueWithUnit));
  }

  /** A line of context (what ran, a warning). */
  public void note(String text) {
    out.println("    - " + text);
    out.flush();
  }

  /** The headline figures as a Markdown table. */
  public void printSummary() {
    out.println();
    out.println("| benchmark | figure | value |");
    out.println("|---|---|---|");
    for (Headline h : headlines) {
      out.println("| " + h.benchmark() + " | " + cell(h.figure()) + " | " + cell(h.value()) + " |");
    }
    out.flush();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|");
  }

  /** {@code 12,345} */
  public static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  /** {@code 12,345 events/s} */
  public static String perSecond(double rate, String unit) {
    return String.format(Locale.ROOT, "%,.0f %s/s", rate, unit);
  }

  /** Seconds with two decimals: {@code 4.21 s}. */
  public static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }

  /** Milliseconds from µs with three decimals: {@code 0.125 ms}. */
  public static String ms(long micros) {
    return String.format(Locale.ROOT, "%.3f ms", micros / 1000.0);
  }

  /**
   * The given percentiles and the maximum of {@code h}, in ms: {@code msPercentiles(h, 50, 99)} is
   * {@code 0.125 ms / 0.480 ms / 2.100 ms} (p50 / p99 / max).
   */
  public static String msPercentiles(LatencyHistogram h, double... percentiles) {
    StringBuilder text = new StringBuilder();
    for (double p : percentiles) {
      text.append(ms(h.percentileMicros(p))).append(" / ");
    }
    return text.append(ms(h.maxMicros())).toString();
  }

  /**
   * The given percentiles and the maximum of {@code h} minus those of {@code base}, signed, in ms:
   * {@code msDifferences(h, base, 99)} is {@code +0.125 ms / -0.300 ms} (p99 / max).
   */
  public static String msDifferences(
      LatencyHistogram h, LatencyHistogram base, double... percentiles) {
    StringBuilder text = new StringBuilder();
    for (double p : percentiles) {
      text.append(signedMs(h.percentileMicros(p) - base.percentileMicros(p))).append(" ms / ");
    }
    return text.append(signedMs(h.maxMicros() - base.maxMicros())).append(" ms").toString();
  }

  /** A difference of µs as signed ms with three decimals: {@code +0.125}. */
  public static String signedMs(long micros) {
    return String.format(Locale.ROOT, "%+.3f", micros / 1000.0);
  }

  /** Bytes as MB with one decimal. */
  public static String mb(long bytes) {
    return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
  }
}
