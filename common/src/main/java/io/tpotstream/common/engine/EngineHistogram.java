package io.tpotstream.common.engine;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.util.List;

/**
 * What one of an engine's Prometheus histograms gained over a scrape interval: the bucket upper
 * bounds in µs, ascending (Prometheus's {@code le}, inclusive), and the observations per bucket
 * (not cumulative), one more count than bounds (the last is the {@code +Inf} bucket).
 *
 * @param leUs the finite upper bounds in µs, strictly ascending
 * @param counts the observations in each bucket: {@code leUs.size() + 1} of them
 */
public record EngineHistogram(
    @JsonSetter(contentNulls = Nulls.FAIL) List<Long> leUs,
    @JsonSetter(contentNulls = Nulls.FAIL) List<Long> counts) {

  /** Either list stays null when a record left it out (the readers' bounds then name it). */
  public EngineHistogram {
    leUs = leUs == null ? null : List.copyOf(leUs);
    counts = counts == null ? null : List.copyOf(counts);
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
