package io.tpotstream.common.slo;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The whole run's verdict, one line for a CI log: met when every series met every objective on its
 * whole-run statistics (all its windows merged). An objective a series had no data for (no sample
 * of its metric, e.g. no TPOT gap when every request failed) is not met, and the line says so:
 * {@code SLO failed: tpot_p99: no data, 0 samples (model-a)}. {@code produce}, {@code run} and
 * {@code stats} exit with {@link #EXIT_FAILED} when it is not met.
 */
public record SloVerdict(boolean met, String line) {
  /** The exit status of a bounded run that failed its SLO. */
  public static final int EXIT_FAILED = 3;

  /**
   * The verdict over {@code wholeRun} (series to its whole-run result, in the order to report).
   * With no series at all nothing was measured, and the SLO is failed.
   */
  public static SloVerdict of(SloSpec spec, Map<String, SloResult> wholeRun) {
    if (wholeRun.isEmpty()) {
      return new SloVerdict(false, "SLO failed: no request finished, nothing to evaluate");
    }
    List<String> missed = new ArrayList<>();
    BigDecimal lowestGoodput = null;
    String lowestGoodputSeries = null;
    for (Map.Entry<String, SloResult> e : wholeRun.entrySet()) {
      for (ObjectiveResult r : e.getValue().missed()) {
        missed.add(r.describe() + " (" + e.getKey() + ")");
      }
      BigDecimal g = e.getValue().goodput();
      if (g != null && (lowestGoodput == null || g.compareTo(lowestGoodput) < 0)) {
        lowestGoodput = g;
        lowestGoodputSeries = e.getKey();
      }
    }
    String goodput =
        lowestGoodput == null
            ? ""
            : "; goodput "
                + percent(lowestGoodput)
                + (wholeRun.size() > 1 ? " (lowest, " + lowestGoodputSeries + ")" : "");
    if (!missed.isEmpty()) {
      return new SloVerdict(false, "SLO failed: " + String.join(", ", missed) + goodput);
    }
    if (spec.objectives().isEmpty()) {
      return new SloVerdict(
          true, "no --slo objectives (" + wholeRun.size() + " series, whole run)" + goodput);
    }
    StringJoiner limits = new StringJoiner(", ");
    for (Objective o : spec.objectives()) {
      limits.add(o.name() + " " + o.comparator() + " " + o.limitText());
    }
    return new SloVerdict(
        true, "SLO met: " + limits + " (" + wholeRun.size() + " series, whole run)" + goodput);
  }

  public int exitCode() {
    return met ? 0 : EXIT_FAILED;
  }

  private static String percent(BigDecimal share) {
    return share.movePointRight(2).stripTrailingZeros().toPlainString() + "%";
  }
}
