package io.tpotstream.common.slo;

import io.tpotstream.common.Durations;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowStats;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

/**
 * One SLO objective: a statistic of a metric and its limit. Latency objectives ({@code tpot_p99},
 * {@code ttft_p50}, {@code request_tpot_p90}, {@code e2e_p99.9}, {@code tpot_max}, {@code
 * tpot_mean}) have their limit in ms and are met when the measured value is at most the limit;
 * {@code error_rate} is a fraction met when at most the limit; {@code goodput} is a fraction met
 * when at least the limit.
 *
 * @param name as written by the user, lower case (e.g. {@code tpot_p99})
 * @param percentile 0–100 for a percentile statistic; {@link #MAX} or {@link #MEAN} otherwise
 * @param limit ms (three decimals) for latencies, a fraction (e.g. 0.01) for the two rates
 */
public record Objective(String name, SloMetric metric, double percentile, BigDecimal limit) {
  /** {@link #percentile} of a {@code _max} objective. */
  public static final double MAX = -1;

  /** {@link #percentile} of a {@code _mean} objective. */
  public static final double MEAN = -2;

  /** Reads {@code name=limit}, e.g. {@code tpot_p99=50ms}, {@code error_rate=1%}. */
  static Objective parse(String item) {
    int eq = item.indexOf('=');
    if (eq <= 0 || eq == item.length() - 1) {
      throw new IllegalArgumentException(
          "--slo: '" + item + "' is not NAME=LIMIT (e.g. tpot_p99=50ms, error_rate=1%)");
    }
    String name = item.substring(0, eq).trim().toLowerCase(Locale.ROOT);
    String limit = item.substring(eq + 1).trim();
    if (name.equals("error_rate")) {
      return new Objective(name, SloMetric.ERROR_RATE, MAX, fraction(name, limit));
    }
    if (name.equals("goodput")) {
      return new Objective(name, SloMetric.GOODPUT, MAX, fraction(name, limit));
    }
    SloMetric metric = SloMetric.latencyPrefixOf(name);
    if (metric == null) {
      throw new IllegalArgumentException(
          "--slo: unknown objective '"
              + name
              + "': use tpot_, ttft_, request_tpot_ or e2e_ with p50, p99, p99.9, max or mean"
              + " (e.g. tpot_p99), error_rate or goodput");
    }
    double percentile = statistic(name, name.substring(metric.prefix().length() + 1));
    Duration d = Durations.parse("--slo " + name, limit);
    return new Objective(name, metric, percentile, LatencyHistogram.ms(d.toNanos() / 1000));
  }

  private static double statistic(String name, String stat) {
    if (stat.equals("max")) {
      return MAX;
    }
    if (stat.equals("mean")) {
      return MEAN;
    }
    if (stat.matches("p\\d+(\\.\\d+)?")) {
      String digits = stat.substring(1);
      // p999 is p99.9 and p9999 is p99.99, as the summary's p999Ms and p9999Ms
      if (!digits.contains(".") && digits.length() > 2) {
        digits = digits.substring(0, 2) + "." + digits.substring(2);
      }
      double p = Double.parseDouble(digits);
      if (p > 0 && p <= 100) {
        return p;
      }
    }
    throw new IllegalArgumentException(
        "--slo: '"
            + name
            + "' has no statistic we know: end it in _p50, _p90, _p99, _p99.9 (or _p999), _max or"
            + " _mean");
  }

  private static BigDecimal fraction(String name, String text) {
    BigDecimal value;
    try {
      value =
          text.endsWith("%")
              ? new BigDecimal(text.substring(0, text.length() - 1).trim()).movePointLeft(2)
              : new BigDecimal(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "--slo " + name + ": cannot read '" + text + "' (write a share such as 1% or 0.01)");
    }
    if (value.signum() < 0 || value.compareTo(BigDecimal.ONE) > 0) {
      throw new IllegalArgumentException(
          "--slo " + name + ": '" + text + "' is not a share between 0% and 100%");
    }
    return value.stripTrailingZeros();
  }

  /**
   * The measured value in {@code stats}: ms for latencies, a fraction for rates; null when the
   * window holds no sample of it (no finished request, for the rates).
   */
  BigDecimal measure(WindowStats stats) {
    long finished = stats.completed() + stats.failed() + stats.abandoned();
    return switch (metric) {
      case ERROR_RATE ->
          finished == 0
              ? null
              : LatencyHistogram.ratio(stats.failed() + stats.abandoned(), finished, 4);
      case GOODPUT ->
          finished == 0 ? null : LatencyHistogram.ratio(stats.goodRequests(), finished, 4);
      default -> {
        LatencyHistogram h = metric.histogram(stats);
        if (h.count() == 0) {
          yield null;
        }
        long micros =
            percentile == MAX
                ? h.maxMicros()
                : percentile == MEAN ? h.meanMicros() : h.percentileMicros(percentile);
        yield LatencyHistogram.ms(micros);
      }
    };
  }

  /**
   * Never met when nothing was measured (an SLO over no data is not met), else at most the limit
   * (at least, for goodput).
   */
  boolean met(BigDecimal measured) {
    if (measured == null) {
      return false;
    }
    int c = measured.compareTo(limit);
    return metric == SloMetric.GOODPUT ? c >= 0 : c <= 0;
  }

  /** The limit as the user reads it: {@code 50 ms}, {@code 1%}. */
  public String limitText() {
    return text(limit);
  }

  /** A measured value in this objective's unit: {@code 62.3 ms}, {@code 4.5%}. */
  public String text(BigDecimal value) {
    return ObjectiveResult.text(name, value);
  }

  /** {@code <=} or {@code >=}: the direction of the limit. */
  String comparator() {
    return metric == SloMetric.GOODPUT ? ">=" : "<=";
  }
}
