package io.tpotstream.common;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads durations as users write them on the command line and in specs: {@code 250us}, {@code
 * 50ms}, {@code 1.5s}, {@code 10m}, {@code 2h}, {@code 1d}; a bare number is in seconds. Used by
 * the SLO limits, schedules and sweeps.
 */
public final class Durations {
  private static final Pattern AMOUNT =
      Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(us|µs|ms|s|m|h|d)?");

  private Durations() {}

  /**
   * Parses {@code text} (at least 0); {@code what} names it in the message of the {@link
   * IllegalArgumentException} thrown for text that is not a duration.
   */
  public static Duration parse(String what, String text) {
    Matcher m = AMOUNT.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException(
          what + ": cannot read '" + text + "' as a duration (write e.g. 50ms, 1.5s, 10m, 2h)");
    }
    BigDecimal amount = new BigDecimal(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    long nanosPerUnit =
        switch (unit) {
          case "us", "µs" -> 1_000L;
          case "ms" -> 1_000_000L;
          case "s" -> 1_000_000_000L;
          case "m" -> 60_000_000_000L;
          case "h" -> 3_600_000_000_000L;
          default -> 86_400_000_000_000L;
        };
    return Duration.ofNanos(amount.multiply(BigDecimal.valueOf(nanosPerUnit)).longValue());
  }

  /** A short form: {@code 90s}, {@code 10m}, {@code 250ms}, {@code 1.5s}, {@code 40us}. */
  public static String format(Duration d) {
    long nanos = d.toNanos();
    if (nanos % 1_000_000 != 0) {
      return BigDecimal.valueOf(nanos, 3).stripTrailingZeros().toPlainString() + "us";
    }
    long ms = nanos / 1_000_000;
    if (ms != 0 && ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    if (ms > 1000) {
      return BigDecimal.valueOf(ms, 3).stripTrailingZeros().toPlainString() + "s";
    }
    return ms + "ms";
  }
}
