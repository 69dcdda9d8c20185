package io.tpotstream.common;

/**
 * Default topic names (docs/design.md, "Topics"); every command can override them or add a prefix.
 */
public final class Topics {
  public static final String TOKEN_EVENTS = "tpot.token-events";
  public static final String WINDOW_SUMMARIES = "tpot.window-summaries";
  public static final String METRICS = "tpot.metrics";
  public static final String DEAD_LETTER = "tpot.dead-letter";

  private Topics() {}

  /**
   * Returns {@code name} with {@code prefix} in front; a null or empty prefix leaves it unchanged.
   */
  public static String prefixed(String prefix, String name) {
    return prefix == null || prefix.isEmpty() ? name : prefix + name;
  }
}
