package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.stage1.PartitionStage;

/**
 * Whether an input partition that has read nothing for a while is really silent: the broker
 * answers, and what it holds has all been read. Only then may the wall clock move a partition's
 * clock on (producers time out, windows close); while the broker is down, the aggregator's fetches
 * stall or its host is paused, silence is not evidence and the clock waits.
 */
public interface ReadConfirmation {
  /** Every silence is real (tests driving the topology by hand, offline reading). */
  ReadConfirmation ALWAYS = (partition, nextOffset) -> PartitionStage.ALWAYS_CONFIRMED;

  /**
   * When (epoch ms, this machine's clock) the broker last answered that input partition {@code
   * partition} ends at most one offset (a transaction marker) past what this application has read
   * there: {@code nextOffset}, the offset after the last record its task processed (-1: none since
   * it started), or the offset it committed, whichever is further. {@link Long#MIN_VALUE} when its
   * last answer said otherwise or none came.
   */
  long confirmedAtMs(int partition, long nextOffset);
}
