package io.tpotstream.common;

import java.math.BigDecimal;
import java.util.Comparator;

/**
 * The {@code stage} label of a sweep ({@code --sweep concurrency=1,4,16}): its value is the
 * dimension and the load, {@code concurrency-4} or {@code rate-0.5}, so that reports can plot
 * latency against load.
 */
public final class Stages {
  /** The label every request of a sweep stage carries. */
  public static final String LABEL = "stage";

  /** Orders stage names by dimension, then load as a number (so 4 comes before 16). */
  public static final Comparator<String> BY_LOAD =
      Comparator.comparing(Stages::dimensionOf, Comparator.nullsLast(Comparator.naturalOrder()))
          .thenComparing(Stages::loadOf, Comparator.nullsLast(Comparator.naturalOrder()))
          .thenComparing(Comparator.naturalOrder());

  private Stages() {}

  /** The label's value of a stage: {@code dimension-load}. */
  public static String name(String dimension, BigDecimal load) {
    return dimension + "-" + load.stripTrailingZeros().toPlainString();
  }

  /** The load a stage's label names ({@code concurrency-4} → 4), or null for another value. */
  public static BigDecimal loadOf(String stage) {
    if (stage == null) {
      return null;
    }
    int dash = stage.lastIndexOf('-');
    try {
      return dash < 0 ? null : new BigDecimal(stage.substring(dash + 1));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The dimension a stage's label names ({@code concurrency-4} → concurrency), or null. */
  public static String dimensionOf(String stage) {
    if (stage == null || loadOf(stage) == null) {
      return null;
    }
    return stage.substring(0, stage.lastIndexOf('-'));
  }
}
