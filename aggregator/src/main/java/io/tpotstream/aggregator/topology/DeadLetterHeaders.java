package io.tpotstream.aggregator.topology;

/** Header names on {@code tpot.dead-letter} records: where the record came from and why. */
public final class DeadLetterHeaders {
  public static final String SOURCE_TOPIC = "tpot.source.topic";
  public static final String SOURCE_PARTITION = "tpot.source.partition";
  public static final String SOURCE_OFFSET = "tpot.source.offset";
  public static final String REASON = "tpot.reason";

  /** {@code true} when the value is only the original's first bytes. */
  public static final String VALUE_TRUNCATED = "tpot.value.truncated";

  /** The original value's size in bytes, when the value was truncated. */
  public static final String VALUE_SIZE = "tpot.value.size";

  /** {@code true} when the key is only the original's first bytes. */
  public static final String KEY_TRUNCATED = "tpot.key.truncated";

  /** The original key's size in bytes, when the key was truncated. */
  public static final String KEY_SIZE = "tpot.key.size";

  /** How many of the original headers were left out (the first ones that fit are kept). */
  public static final String HEADERS_DROPPED = "tpot.headers.dropped";

  private DeadLetterHeaders() {}
}
