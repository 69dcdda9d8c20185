package io.tpotstream.producer.config;

import java.time.Duration;
import java.util.Locale;

/**
 * What warms the path before a run measures: warm-up requests, whose events carry {@code warmup:
 * true} and are left out of every statistic. By default ({@code local}) they go to a server inside
 * the process (the run's models, in the run's API) until the JIT has settled, within a budget of
 * time and chunks ({@link WarmupBudget}: at most 10 s and 100,000 chunks, and a tenth of a bounded
 * run's work): the whole path (HTTP client, SSE, the dialect, recording, encoding, Kafka) is warm,
 * and the endpoint sees only the requests the user asked for. Asked for, they go to the endpoint,
 * to warm its connections too: a time ({@code 10s}: the requests started in the first 10 seconds,
 * and on until the JIT has settled, at most a minute more) or a number of requests ({@code 50req}).
 * {@code 0}: none at all. The run's own requests ({@code total_requests}, {@code duration}) come
 * after it.
 *
 * @param duration the least time a timed warm-up to the endpoint lasts (then until the JIT
 *     settles), a local one's most; null when counted in requests or off
 * @param requests the first this many requests are warm-up; 0 when timed or off
 * @param local the warm-up requests go to a simulator inside the process, not the endpoint
 */
public record Warmup(Duration duration, int requests, boolean local) {
  /**
   * The default: the run's own warm-up requests, sent to a server inside the process until the JIT
   * has settled, within its {@link WarmupBudget} (10 s at most); none reaches the endpoint.
   */
  public static final Warmup LOCAL = new Warmup(Duration.ofSeconds(10), 0, true);

  /** The default. */
  public static final Warmup DEFAULT = LOCAL;

  /** No warm-up: every request is measured, from a cold JIT. */
  public static final Warmup NONE = new Warmup(null, 0, false);

  /** Parses {@code 10s}, {@code 50req} or {@code 0} (the config key or flag {@code key}). */
  public static Warmup parse(String key, String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    if (t.equals("local")) {
      return LOCAL;
    }
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
          return new Warmup(null, count, false);
        }
      } catch (NumberFormatException e) {
        // falls through to the message
      }
      throw new ConfigException(
          "config key '"
              + key
              + "': cannot read '"
              + text
              + "' as a number of warm-up requests (use e.g. 50req, 10s, local or 0)");
    }
    try {
      return new Warmup(ConfigDurations.parse(key, t, false), 0, false);
    } catch (ConfigException e) {
      throw new ConfigException(
          "config key '"
              + key
              + "': cannot read '"
              + text
              + "' as a warm-up (use local, the default, or 10s or 50req to warm the endpoint too, or 0 for none)");
    }
  }

  /** True when no request of the run is a warm-up one. */
  public boolean none() {
    return duration == null && requests == 0;
  }

  /** {@code local}, {@code 10s}, {@code 50req} or {@code 0}. */
  public String describe() {
    if (local) {
      return "local";
    }
    if (duration != null) {
      return ConfigDurations.format(duration);
    }
    return requests > 0 ? requests + "req" : "0";
  }
}
