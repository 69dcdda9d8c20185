package io.tpotstream.simulator.engine;

import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One Prometheus histogram of durations with fixed upper bounds, as a client library keeps it:
 * counts per bucket (not cumulative) and the sum, each an atomic, so that the event loops observe
 * without a lock (an increment and an add per observation); the cumulative {@code _bucket} lines
 * are made only when written. The {@code +Inf} line and {@code _count} are the sum of the same
 * counts read once, so a scrape always shows them equal.
 */
final class FixedBuckets {
  /** The bounds as vLLM's exposition writes them ({@code "0.001"}, {@code "1.0"}). */
  private final List<String> boundTexts;

  /** The same bounds in ns, exact (every bound is a whole number of ns). */
  private final long[] boundsNs;

  /** One count per bound, then the {@code +Inf} bucket's own. */
  private final AtomicLongArray counts;

  private final AtomicLong sumNs = new AtomicLong();

  /**
   * @param boundsSeconds the upper bounds in seconds, increasing, as decimal text
   */
  FixedBuckets(List<String> boundsSeconds) {
    this.boundTexts = List.copyOf(boundsSeconds);
    this.boundsNs = new long[boundTexts.size()];
    for (int i = 0; i < boundsNs.length; i++) {
      boundsNs[i] = new BigDecimal(boundTexts.get(i)).movePointRight(9).longValueExact();
      if (i > 0 && boundsNs[i] <= boundsNs[i - 1]) {
        throw new IllegalArgumentException("bounds must increase: " + boundsSeconds);
      }
    }
    this.counts = new AtomicLongArray(boundsNs.length + 1);
  }

  /** Counts one duration, in ns (a negative one as 0), in the first bucket whose bound holds it. */
  void observeNs(long ns) {
    long value = Math.max(0, ns);
    int bucket = 0;
    while (bucket < boundsNs.length && value > boundsNs[bucket]) {
      bucket++;
    }
    counts.incrementAndGet(bucket);
    sumNs.addAndGet(value);
  }

  /**
   * Appends this histogram's lines for one series: a cumulative {@code NAME_bucket} per bound and
   * {@code +Inf} (the series' {@code labels}, then {@code le}), then {@code NAME_count} and {@code
   * NAME_sum} (in seconds).
   */
  void write(StringBuilder out, String name, String labels) {
    long cumulative = 0;
    for (int i = 0; i <= boundsNs.length; i++) {
      cumulative += counts.get(i);
      out.append(name).append("_bucket{").append(labels).append(",le=\"");
      out.append(i < boundsNs.length ? boundTexts.get(i) : "+Inf").append("\"} ");
      Exposition.count(out, cumulative).append('\n');
    }
    out.append(name).append("_count{").append(labels).append("} ");
    Exposition.count(out, cumulative).append('\n');
    out.append(name).append("_sum{").append(labels).append("} ");
    Exposition.seconds(out, sumNs.get()).append('\n');
  }
}
