package io.tpotstream.sink.compare;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code tpot compare}'s table: both runs' values, the difference, its interval, the verdict. */
public final class CompareTable {
  private CompareTable() {}

  public static String format(CompareResult r) {
    StringBuilder t = new StringBuilder();
    t.append("A: ").append(describe(r.a())).append('\n');
    t.append("B: ").append(describe(r.b())).append('\n');
    String confidence = r.confidence().movePointRight(2).stripTrailingZeros().toPlainString();
    t.append(r.method())
        .append(" (")
        .append(r.resamples())
        .append(" resamples); ")
        .append(confidence)
        .append("% interval of B - A; 'yes' when it leaves out 0.\n\n");
    int width = "series".length();
    for (CompareResult.SeriesComparison s : r.series()) {
      width = Math.max(width, s.series().length());
    }
    String row = "%-" + width + "s  %-6s %-6s %10s %10s %10s %9s  %-24s %s%n";
    t.append(
        String.format(
            Locale.ROOT,
            row,
            "series",
            "metric",
            "stat",
            "A ms",
            "B ms",
            "B - A ms",
            "change",
            confidence + "% interval",
            "beyond noise"));
    List<String> onlyA = new ArrayList<>();
    List<String> onlyB = new ArrayList<>();
    for (CompareResult.SeriesComparison s : r.series()) {
      if (s.onlyIn() != null) {
        (s.onlyIn().equals("a") ? onlyA : onlyB).add(s.series());
        continue;
      }
      for (CompareResult.StatComparison c : s.stats()) {
        t.append(
            String.format(
                Locale.ROOT,
                row,
                s.series(),
                c.metric().toUpperCase(Locale.ROOT),
                c.stat(),
                plain(c.aMs()),
                plain(c.bMs()),
                signed(c.diffMs()),
                c.changePercent() == null ? "-" : signed(c.changePercent()) + "%",
                c.lowMs() == null ? "-" : "[" + signed(c.lowMs()) + ", " + signed(c.highMs()) + "]",
                c.beyondNoise() == null
                    ? "n/a (too few " + s.unit() + ")"
                    : c.beyondNoise() ? "yes" : "no"));
      }
    }
    if (!onlyA.isEmpty()) {
      t.append("only in A: ").append(String.join(", ", onlyA)).append('\n');
    }
    if (!onlyB.isEmpty()) {
      t.append("only in B: ").append(String.join(", ", onlyB)).append('\n');
    }
    return t.toString();
  }

  static String describe(CompareResult.Side side) {
    return side.source()
        + " ("
        + side.kind()
        + ", "
        + side.windows()
        + " windows"
        + (side.requests() == null ? "" : ", " + side.requests() + " requests")
        + ", "
        + side.series().size()
        + " series)";
  }

  static String plain(BigDecimal v) {
    return v == null ? "-" : v.toPlainString();
  }

  static String signed(BigDecimal v) {
    if (v == null) {
      return "-";
    }
    return (v.signum() > 0 ? "+" : "") + v.toPlainString();
  }
}
