package io.tpotstream.common.slo;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * One objective evaluated on one window (or a whole run): its limit and measured value (ms for
 * latencies, a fraction for {@code error_rate} and {@code goodput}; measured is omitted when there
 * was nothing to measure, which counts as met).
 */
@JsonPropertyOrder({"name", "limit", "measured", "met"})
public record ObjectiveResult(String name, BigDecimal limit, BigDecimal measured, boolean met) {

  /** As a reader reads it: {@code tpot_p99 62.3 ms > 50 ms}, {@code goodput 81% < 90%}. */
  public String describe() {
    boolean goodput = name.equals("goodput");
    String comparison = met ? (goodput ? " >= " : " <= ") : (goodput ? " < " : " > ");
    return name + " " + text(name, measured) + comparison + text(name, limit);
  }

  /**
   * A value of objective {@code name} in its unit: {@code 62.3 ms}, {@code 4.5%}, {@code no data}.
   */
  static String text(String name, BigDecimal value) {
    if (value == null) {
      return "no data";
    }
    if (!name.equals("goodput") && !name.equals("error_rate")) {
      return value.stripTrailingZeros().toPlainString() + " ms";
    }
    return value
            .movePointRight(2)
            .setScale(2, RoundingMode.HALF_EVEN)
            .stripTrailingZeros()
            .toPlainString()
        + "%";
  }
}
