package io.tpotstream.producer.config;

import java.time.Duration;
import java.util.Locale;

/**
 * The start of a run that exercises the whole path (HTTP, SSE, parsing, encoding, publishing) until
 * the JIT has compiled it, and is left out of every statistic: its requests' events carry {@code
 * warmup: true}. Either a time ({@code 10s}, the default: the requests started in the first 10
 * seconds, and on until the JIT has settled, at most a minute more), or a number of requests
 * ({@code 50req}), or none ({@code 0}). The run's own requests ({@code total_requests}, {@code
 * duration}) come after it.
 *
 * @param duration the least time the warm-up lasts (then until the JIT settles); null when counted
 *     in requests or off
 * @param requests the first this many requests are warm-up; 0 when timed or off
 */
public record Warmup(Duration duration, int requests) {
  /** The default: the requests of the first 10 seconds. */
  public static final Warmup DEFAULT = new Warmup(Duration.ofSeconds(10), 0);

  /** No warm-up: every request is measured. */
  public static final Warmup NONE = new Warmup(null, 0);

  /** Parses {@code 10s}, {@code 50req} or {@code 0} (the config key or flag {@code key}). */
  public static Warmup parse(String key, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("0")
        || t.equals("0s")
        || t.equals("0req")
        || t.equals("off")
        || t.equals("none")) {
      return NONE;
    }
    if (t.endsWith("req") || t.endsWith("requests")) {
      String n = t.replaceFirst("\\s*(requests|req)$", "");
      try {
        int count = Integer.parseInt(n);
        if (count > 0) {
          return new Warmup(null, count);
        }
      } catch (NumberFormatException e) {
        // falls through to the message
      }
      throw new ConfigException(
          "config key '"
              + key
              + "': cannot read '"
              + text
              + "' as a number of warm-up requests (use e.g. 50req, 10s or 0)");
    }
    try {
      return new Warmup(Durations.parse(key, t, false), 0);
    } catch (ConfigException e) {
      throw new ConfigException(
          "config key '"
              + key
              + "': cannot read '"
              + text
              + "' as a warm-up (use e.g. 10s, 50req, or 0 for none)");
    }
  }

  public boolean none() {
    return duration == null && requests == 0;
  }

  /** {@code 10s}, {@code 50req} or {@code 0}. */
  public String describe() {
    if (duration != null) {
      return Durations.format(duration);
    }
    return requests > 0 ? requests + "req" : "0";
  }
}
