package io.tpotstream.common.slo;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * One objective evaluated on one window (or a whole run): its limit and measured value (ms for
 * latencies, a fraction for {@code error_rate} and {@code goodput}). When there was nothing to
 * measure (no sample of the objective's metric; no finished request, for the two rates) {@code
 * measured} is omitted, {@code met} is false and {@code noData} is true: an objective over no data
 * is not met. {@code noData} is null (omitted from the JSON) whenever there was data.
 */
@JsonPropertyOrder({"name", "limit", "measured", "met", "noData"})
public record ObjectiveResult(
    String name, BigDecimal limit, BigDecimal measured, boolean met, Boolean noData) {

  /** The result of an objective over {@code measured}, null when there was nothing to measure. */
  static ObjectiveResult of(Objective o, BigDecimal measured) {
    return new ObjectiveResult(
        o.name(), o.limit(), measured, o.met(measured), measured == null ? Boolean.TRUE : null);
  }

  /** True when the objective had nothing to measure (and so was not met). */
  public boolean hasNoData() {
    return Boolean.TRUE.equals(noData);
  }

  /**
   * As a reader reads it: {@code tpot_p99 62.3 ms > 50 ms}, {@code goodput 81% < 90%}, {@code
   * tpot_p99: no data, 0 samples}, {@code error_rate: no data, 0 finished requests}.
   */
  public String describe() {
    if (hasNoData()) {
      return name + ": no data, 0 " + (rate(name) ? "finished requests" : "samples");
    }
    boolean goodput = name.equals("goodput");
    String comparison = met ? (goodput ? " >= " : " <= ") : (goodput ? " < " : " > ");
    return name + " " + text(name, measured) + comparison + text(name, limit);
  }

  /**
   * The objective as the flat record's {@code slo_missed} names it: its name, or {@code
   * NAME:no_data} when there was nothing to measure.
   */
  public String missedName() {
    return hasNoData() ? name + ":no_data" : name;
  }

  /**
   * A value of objective {@code name} in its unit: {@code 62.3 ms}, {@code 4.5%}, {@code no data}.
   */
  static String text(String name, BigDecimal value) {
    if (value == null) {
      return "no data";
    }
    if (!rate(name)) {
      return value.stripTrailingZeros().toPlainString() + " ms";
    }
    return value
            .movePointRight(2)
            .setScale(2, RoundingMode.HALF_EVEN)
            .stripTrailingZeros()
            .toPlainString()
        + "%";
  }

  private static boolean rate(String name) {
    return name.equals("goodput") || name.equals("error_rate");
  }
}
