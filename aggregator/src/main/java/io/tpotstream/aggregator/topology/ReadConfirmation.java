package io.tpotstream.aggregator.topology;

/**
 * Whether an input partition that has read nothing for a while is really silent: the broker
 * answered lately, and what it holds has all been read. Only then may the wall clock move a
 * partition's clock on (producers time out, windows close); while the broker is down, the
 * aggregator's fetches stall or its host is paused, silence is not evidence and the clock waits.
 */
public interface ReadConfirmation {
  /** Every silence is real (tests driving the topology by hand, offline reading). */
  ReadConfirmation ALWAYS = (partition, wallNowMs) -> true;

  /**
   * True when the broker answered, within the last few seconds before {@code wallNowMs} (epoch ms),
   * that input partition {@code partition} ends at most one offset (a transaction marker) past the
   * offset this application has committed there.
   */
  boolean caughtUp(int partition, long wallNowMs);
}
