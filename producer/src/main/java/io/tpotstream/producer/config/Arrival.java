package io.tpotstream.producer.config;

import java.util.Locale;

/** How open-loop requests are spaced. */
public enum Arrival {
  /** Exactly 1/rate apart. */
  CONSTANT,
  /** Exponentially distributed gaps with mean 1/rate (a Poisson process). */
  POISSON;

  static Arrival parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "config key 'arrival': unknown arrival '" + value + "' (expected constant or poisson)");
    }
  }
}
