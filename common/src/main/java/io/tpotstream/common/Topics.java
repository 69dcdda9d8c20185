package io.tpotstream.common;

import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/**
 * Default topic names (docs/design.md, "Topics"); every command can override them or add a prefix.
 */
public final class Topics {
  public static final String TOKEN_EVENTS = "tpot.token-events";
  public static final String WINDOW_SUMMARIES = "tpot.window-summaries";
  public static final String METRICS = "tpot.metrics";
  public static final String DEAD_LETTER = "tpot.dead-letter";

  /** The start of the name of a topic {@code tpot replay} writes to when none is named. */
  public static final String REPLAY_PREFIX = "tpot.replay.";

  /**
   * The settings of a token-events topic tpot creates: the broker stamps each record with its own
   * append time, the one clock no producer can bend, by which the aggregator closes windows and
   * checks the producers' times (docs/design.md, "Time, windows and completeness"). A replay topic
   * is the exception: it carries the original records' timestamps, so it keeps the producers'.
   */
  public static final Map<String, String> TOKEN_EVENTS_CONFIG =
      Map.of(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "LogAppendTime");

  private Topics() {}

  /**
   * Returns {@code name} with {@code prefix} in front; a null or empty prefix leaves it unchanged.
   */
  public static String prefixed(String prefix, String name) {
    return prefix == null || prefix.isEmpty() ? name : prefix + name;
  }
}
