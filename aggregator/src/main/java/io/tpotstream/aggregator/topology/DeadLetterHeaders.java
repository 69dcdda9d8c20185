package io.tpotstream.aggregator.topology;

/** Header names on {@code tpot.dead-letter} records: where the record came from and why. */
public final class DeadLetterHeaders {
  public static final String SOURCE_TOPIC = "tpot.source.topic";
  public static final String SOURCE_PARTITION = "tpot.source.partition";
  public static final String SOURCE_OFFSET = "tpot.source.offset";
  public static final String REASON = "tpot.reason";

  private DeadLetterHeaders() {}
}
