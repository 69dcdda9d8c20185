package io.tpotstream.producer.config;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;

/**
 * The durations of config files: {@code 500ms}, {@code 90s}, {@code 10m}, {@code 2h} (read with the
 * common {@link io.tpotstream.common.Durations}), more than 0, or {@code forever}.
 */
public final class ConfigDurations {
  /** A run length that never ends on its own (only Ctrl-C or SIGTERM stop it). */
  public static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  private ConfigDurations() {}

  /**
   * Parses {@code text}; a bare number is in seconds. {@code forever} gives {@link #FOREVER} when
   * {@code foreverAllowed}.
   */
  public static Duration parse(String key, String text, boolean foreverAllowed) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (foreverAllowed && (t.equals("forever") || t.equals("inf") || t.equals("infinite"))) {
      return FOREVER;
    }
    Duration d;
    try {
      d = io.tpotstream.common.Durations.parse("config key '" + key + "'", text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "config key '"
              + key
              + "': cannot read '"
              + text
              + "' as a duration (use e.g. 500ms, 90s, 10m, 2h"
              + (foreverAllowed ? " or forever)" : ")"));
    }
    if (d.isZero()) {
      throw new ConfigException(
          "config key '" + key + "': must be more than 0, got '" + text + "'");
    }
    return d;
  }

  /**
   * A short human form to the millisecond: {@code 90s}, {@code 10m}, {@code 250ms}, {@code
   * forever}.
   */
  public static String format(Duration d) {
    return d.equals(FOREVER)
        ? "forever"
        : io.tpotstream.common.Durations.format(d.truncatedTo(ChronoUnit.MILLIS));
  }
}
