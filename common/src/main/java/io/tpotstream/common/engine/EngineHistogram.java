package io.tpotstream.common.engine;

import java.util.List;

/**
 * What one of an engine's Prometheus histograms gained over a scrape interval: the bucket upper
 * bounds in µs, ascending (Prometheus's {@code le}, inclusive), and the observations per bucket
 * (not cumulative), one more count than bounds (the last is the {@code +Inf} bucket).
 *
 * @param leUs the finite upper bounds in µs, strictly ascending
 * @param counts the observations in each bucket: {@code leUs.size() + 1} of them
 */
public record EngineHistogram(List<Long> leUs, List<Long> counts) {

  public EngineHistogram {
    leUs = List.copyOf(leUs);
    counts = List.copyOf(counts);
  }

  /** Every observation in the interval. */
  public long total() {
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    return total;
  }
}
