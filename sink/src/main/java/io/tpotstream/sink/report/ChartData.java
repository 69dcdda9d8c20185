package io.tpotstream.sink.report;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code charts.js} draws, as the page's JSON: columnar arrays, one per line, aligned on a
 * shared x array, with numbers rounded to what they mean (so that a day of 10 s windows of three
 * models stays under 1 MB).
 *
 * @param xs the x arrays the charts share
 * @param charts in page order
 */
public record ChartData(List<Xs> xs, List<Chart> charts) {
  /** Line colours: a series keeps its colour in every chart (the PNGs' palette too). */
  public static final List<String> PALETTE =
      List.of(
          "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
          "#bcbd22", "#17becf");

  /** {@link Line#dash()}: solid, dashed, dotted (the PNGs' p50, p99, p99.9). */
  public static final int SOLID = 0;

  public static final int DASHED = 1;
  public static final int DOTTED = 2;

  /** The statistics core keeps 3 significant digits per latency; more would be noise. */
  private static final MathContext LATENCY_DIGITS = new MathContext(3, RoundingMode.HALF_UP);

  private static final MathContext RATE_DIGITS = new MathContext(4, RoundingMode.HALF_UP);

  /**
   * One x array: either {@code v}, the values, or (for window ends) {@code start} and the {@code
   * steps} from each value to the next, which repeat and so cost 3 bytes a window.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Xs(BigDecimal start, List<BigDecimal> steps, List<BigDecimal> v) {
    /** Window ends in epoch ms as seconds (uPlot's time unit), by their steps. */
    public static Xs ofTimesMs(List<Long> sortedMs) {
      List<BigDecimal> steps = new ArrayList<>(Math.max(0, sortedMs.size() - 1));
      for (int i = 1; i < sortedMs.size(); i++) {
        steps.add(seconds(sortedMs.get(i) - sortedMs.get(i - 1)));
      }
      return new Xs(sortedMs.isEmpty() ? BigDecimal.ZERO : seconds(sortedMs.get(0)), steps, null);
    }

    public static Xs of(List<BigDecimal> values) {
      return new Xs(null, null, values);
    }

    private static BigDecimal seconds(long ms) {
      return BigDecimal.valueOf(ms, 3).stripTrailingZeros();
    }
  }

  /**
   * One chart.
   *
   * @param id names the chart in the page (its element is {@code chart-<id>})
   * @param x {@code time} (window ends, UTC), {@code nines} (percentiles: 1 = p90, 2 = p99, ...,
   *     the last point the maximum) or {@code number}
   * @param xs index of its x array in {@link ChartData#xs()}
   * @param unit shown after every value: {@code ms}, {@code %}, {@code tokens/s}
   * @param log drawn on a log y axis first (a checkbox switches); a linear axis starts at 0
   * @param marker a dashed horizontal line at this y value, with {@code markerLabel}; or null
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Chart(
      String id,
      String title,
      String x,
      String xLabel,
      int xs,
      String yLabel,
      String unit,
      boolean log,
      BigDecimal marker,
      String markerLabel,
      List<Line> lines) {}

  /**
   * One line: its legend label, colour, {@link #SOLID}, {@link #DASHED} or {@link #DOTTED}, and a
   * value per x (null: none).
   */
  public record Line(String label, String color, int dash, List<BigDecimal> v) {}

  /** A latency for a chart, in ms: 3 significant digits, at most µs precision; null stays null. */
  public static BigDecimal ms(BigDecimal ms) {
    if (ms == null) {
      return null;
    }
    BigDecimal rounded = ms.round(LATENCY_DIGITS);
    return rounded
        .setScale(Math.min(rounded.scale(), 3), RoundingMode.HALF_UP)
        .stripTrailingZeros();
  }

  /** A ratio as a percentage to 0.01 %; null stays null. */
  public static BigDecimal percent(BigDecimal ratio) {
    return ratio == null
        ? null
        : ratio.movePointRight(2).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros();
  }

  /** A rate (e.g. tokens/s): 4 significant digits, at most one decimal; null stays null. */
  public static BigDecimal rate(BigDecimal rate) {
    if (rate == null) {
      return null;
    }
    BigDecimal rounded = rate.round(RATE_DIGITS);
    return rounded
        .setScale(Math.min(rounded.scale(), 1), RoundingMode.HALF_UP)
        .stripTrailingZeros();
  }

  /** The colour of the {@code index}th series (sorted series order). */
  public static String color(int index) {
    return PALETTE.get(index % PALETTE.size());
  }
}
