package io.tpotstream.producer.traffic;

import io.tpotstream.common.Durations;
import io.tpotstream.producer.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * An open-loop arrival rate that changes over the run: steps ({@code 0s:2/s,60s:5/s,120s:10/s}: 2
 * requests per second for the first minute, then 5, then 10) or, with the prefix {@code ramp:},
 * straight lines between the points ({@code ramp:0s:1/s,120s:20/s}). A point {@code T:end} ends the
 * run at T; without it the last rate goes on until the run's other bounds ({@code duration}, {@code
 * total_requests}) end it. Rates are per second ({@code 2/s}, {@code 2}) or per minute ({@code
 * 120/m}), over all models. Times count from the run's first request.
 *
 * <p>Arrival times come from the cumulative rate Λ(t) = ∫ rate: request k is due when Λ reaches its
 * k-th unit step (constant spacing) or the k-th point of a unit-rate Poisson process (Poisson
 * spacing), the standard time change for a Poisson process with a varying rate.
 */
public final class RateSchedule {
  private final double[] timesS;
  private final double[] rates;
  private final boolean ramp;
  private final Double endS;
  private final double[] cumulative;

  private RateSchedule(double[] timesS, double[] rates, boolean ramp, Double endS) {
    this.timesS = timesS;
    this.rates = rates;
    this.ramp = ramp;
    this.endS = endS;
    this.cumulative = new double[timesS.length];
    for (int i = 1; i < timesS.length; i++) {
      double dt = timesS[i] - timesS[i - 1];
      double area = ramp ? (rates[i - 1] + rates[i]) / 2 * dt : rates[i - 1] * dt;
      cumulative[i] = cumulative[i - 1] + area;
    }
  }

  /** One constant rate (requests per second) from the start: the plain {@code rate} key. */
  public static RateSchedule constant(double perSecond) {
    return new RateSchedule(new double[] {0}, new double[] {perSecond}, false, null);
  }

  /**
   * Reads a schedule from {@code text}, or from the file it names ({@code @FILE}, or a path that
   * exists; one point per line or comma-separated, {@code #} starts a comment).
   *
   * @throws ConfigException saying which point cannot be read
   */
  public static RateSchedule parse(String key, String text) {
    String spec = text.trim();
    if (spec.startsWith("@")) {
      spec = readFile(key, Path.of(spec.substring(1)));
    } else if (!spec.isEmpty() && Files.isRegularFile(Path.of(spec))) {
      spec = readFile(key, Path.of(spec));
    }
    boolean ramp = false;
    String body = spec.trim();
    String lower = body.toLowerCase(Locale.ROOT);
    if (lower.startsWith("ramp:")) {
      ramp = true;
      body = body.substring("ramp:".length());
    } else if (lower.startsWith("step:")) {
      body = body.substring("step:".length());
    }
    List<Double> times = new ArrayList<>();
    List<Double> rates = new ArrayList<>();
    Double end = null;
    for (String raw : body.replaceAll("(?m)#.*$", "").split("[,\\n]")) {
      String point = raw.trim();
      if (point.isEmpty()) {
        continue;
      }
      if (end != null) {
        throw new ConfigException(
            key + ": '" + point + "' comes after the end point; 'T:end' must be last");
      }
      int colon = point.indexOf(':');
      if (colon <= 0) {
        throw new ConfigException(
            key + ": '" + point + "' is not TIME:RATE (e.g. 0s:2/s,60s:5/s or 120s:end)");
      }
      double t = seconds(key, point.substring(0, colon).trim());
      if (times.isEmpty() && t != 0) {
        throw new ConfigException(key + ": the first point must be at 0s, got '" + point + "'");
      }
      if (!times.isEmpty() && t <= times.get(times.size() - 1)) {
        throw new ConfigException(
            key + ": times must increase, but '" + point + "' is not after the point before");
      }
      String rate = point.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
      if (rate.equals("end") || rate.equals("stop")) {
        if (times.isEmpty()) {
          throw new ConfigException(key + ": the schedule ends before it starts");
        }
        end = t;
        if (ramp) {
          // a ramp runs up to the end point at the last rate given
          times.add(t);
          rates.add(rates.get(rates.size() - 1));
        }
        continue;
      }
      times.add(t);
      rates.add(perSecond(key, point, rate));
    }
    if (times.isEmpty()) {
      throw new ConfigException(key + ": the schedule is empty (write e.g. 0s:2/s,60s:5/s)");
    }
    if (rates.stream().allMatch(r -> r == 0)) {
      throw new ConfigException(key + ": every rate is 0: no request would ever be sent");
    }
    return new RateSchedule(
        times.stream().mapToDouble(Double::doubleValue).toArray(),
        rates.stream().mapToDouble(Double::doubleValue).toArray(),
        ramp,
        end);
  }

  private static String readFile(String key, Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new ConfigException(key + ": cannot read " + file + " (" + e.getMessage() + ")");
    }
  }

  private static double seconds(String key, String text) {
    try {
      return Durations.parse(key, text).toNanos() / 1e9;
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private static double perSecond(String key, String point, String rate) {
    double divisor = 1;
    String number = rate;
    if (rate.endsWith("/s")) {
      number = rate.substring(0, rate.length() - 2);
    } else if (rate.endsWith("/m") || rate.endsWith("/min")) {
      number = rate.substring(0, rate.indexOf('/'));
      divisor = 60;
    }
    try {
      double r = Double.parseDouble(number.trim()) / divisor;
      if (r >= 0 && !Double.isInfinite(r)) {
        return r;
      }
    } catch (NumberFormatException e) {
      // the message below
    }
    throw new ConfigException(
        key + ": cannot read the rate in '" + point + "' (write e.g. 2/s, 0.5/s, 120/m or end)");
  }

  /** Where the schedule ends the run (its {@code T:end} point), or null. */
  public Duration end() {
    return endS == null ? null : Duration.ofNanos(Math.round(endS * 1e9));
  }

  /** The rate at {@code tS} seconds, requests per second. */
  public double rateAt(double tS) {
    int i = segment(tS);
    if (!ramp || i == timesS.length - 1) {
      return rates[i];
    }
    double f = (tS - timesS[i]) / (timesS[i + 1] - timesS[i]);
    return rates[i] + (rates[i + 1] - rates[i]) * f;
  }

  /** Λ(t): requests expected by {@code tS} seconds. */
  public double cumulative(double tS) {
    int i = segment(tS);
    double u = tS - timesS[i];
    if (!ramp || i == timesS.length - 1) {
      return cumulative[i] + rates[i] * u;
    }
    double slope = (rates[i + 1] - rates[i]) / (timesS[i + 1] - timesS[i]);
    return cumulative[i] + rates[i] * u + slope / 2 * u * u;
  }

  /**
   * When Λ passes {@code s}: the last time (seconds) at which Λ(t) ≤ s, so that a stretch with no
   * arrivals (rate 0) is skipped; {@link Double#POSITIVE_INFINITY} when that is past the end.
   */
  public double timeAt(double s) {
    int i = timesS.length - 1;
    while (i > 0 && cumulative[i] > s) {
      i--;
    }
    double d = s - cumulative[i];
    double t;
    if (!ramp || i == timesS.length - 1) {
      if (rates[i] == 0) {
        return Double.POSITIVE_INFINITY; // the last stretch has no arrivals
      }
      t = timesS[i] + d / rates[i];
    } else {
      double slope = (rates[i + 1] - rates[i]) / (timesS[i + 1] - timesS[i]);
      double root = Math.sqrt(Math.max(0, rates[i] * rates[i] + 2 * slope * d));
      double denominator = rates[i] + root;
      // the stable form of the quadratic's root: u = 2d / (r + sqrt(r^2 + 2 a d))
      t = timesS[i] + (denominator == 0 ? 0 : 2 * d / denominator);
    }
    return endS != null && t >= endS ? Double.POSITIVE_INFINITY : t;
  }

  /** The schedule as one line, for output. */
  public String describe() {
    StringBuilder b = new StringBuilder(ramp ? "ramp " : "steps ");
    for (int i = 0; i < timesS.length; i++) {
      if (ramp && endS != null && i == timesS.length - 1 && timesS[i] == endS) {
        break;
      }
      if (i > 0) {
        b.append(", ");
      }
      b.append(Durations.format(Duration.ofNanos(Math.round(timesS[i] * 1e9))))
          .append(':')
          .append(trim(rates[i]))
          .append("/s");
    }
    if (endS != null) {
      b.append(", ")
          .append(Durations.format(Duration.ofNanos(Math.round(endS * 1e9))))
          .append(":end");
    }
    return b.toString();
  }

  private int segment(double tS) {
    int i = 0;
    while (i + 1 < timesS.length && timesS[i + 1] <= tS) {
      i++;
    }
    return i;
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
