package io.tpotstream.producer.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations of config files: {@code 500ms}, {@code 90s}, {@code 10m}, {@code 2h}. */
public final class Durations {
  /** A run length that never ends on its own (only Ctrl-C or SIGTERM stop it). */
  public static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  private static final Pattern AMOUNT = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)?");

  private Durations() {}

  /**
   * Parses {@code text}; a bare number is in seconds. {@code forever} gives {@link #FOREVER} when
   * {@code foreverAllowed}.
   */
  public static Duration parse(String key, String text, boolean foreverAllowed) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (foreverAllowed && (t.equals("forever") || t.equals("inf") || t.equals("infinite"))) {
      return FOREVER;
    }
    Matcher m = AMOUNT.matcher(t);
    if (!m.matches()) {
      throw new ConfigException(
          "config key '"
              + key
              + "': cannot read '"
              + text
              + "' as a duration (use e.g. 500ms, 90s, 10m, 2h"
              + (foreverAllowed ? " or forever)" : ")"));
    }
    double amount = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    double nanosPerUnit =
        switch (unit) {
          case "ms" -> 1e6;
          case "s" -> 1e9;
          case "m" -> 60e9;
          case "h" -> 3600e9;
          default -> 86400e9;
        };
    Duration d = Duration.ofNanos(Math.round(amount * nanosPerUnit));
    if (d.isZero()) {
      throw new ConfigException(
          "config key '" + key + "': must be more than 0, got '" + text + "'");
    }
    return d;
  }

  /** A short human form: {@code 90s}, {@code 10m}, {@code 250ms}, {@code forever}. */
  public static String format(Duration d) {
    if (d.equals(FOREVER)) {
      return "forever";
    }
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
