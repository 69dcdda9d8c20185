package io.tpotstream.common.stats;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Objects;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

/**
 * The statistics core: latency samples in integer microseconds, 1 µs to 1 h, 3 significant digits
 * (HdrHistogram). Values outside the range are clamped and counted, never thrown. Merging two
 * histograms equals recording all their samples into one.
 */
public final class LatencyHistogram {
  /** Highest value kept exactly in range, in µs (one hour). */
  public static final long HIGHEST_MICROS = 3_600_000_000L;

  /** Significant decimal digits kept per value. */
  public static final int SIGNIFICANT_DIGITS = 3;

  private final Histogram histogram;
  private long clamped;
  private boolean recorded; // anything recorded or added since the last reset

  public LatencyHistogram() {
    this.histogram = new Histogram(1, HIGHEST_MICROS, SIGNIFICANT_DIGITS);
  }

  private LatencyHistogram(Histogram histogram) {
    this.histogram = histogram;
    this.recorded = true;
  }

  /** Wraps a decoded HdrHistogram (see {@link HistogramCodec}). */
  public static LatencyHistogram of(Histogram histogram) {
    LatencyHistogram result = new LatencyHistogram();
    result.histogram.add(histogram);
    result.recorded = true;
    return result;
  }

  /**
   * Records one sample in µs; a negative value is recorded as 0 and a value above one hour as one
   * hour, and both are counted in {@link #clamped()}.
   *
   * @return false when the value had to be clamped
   */
  public boolean recordMicros(long micros) {
    return recordMicros(micros, 1);
  }

  /**
   * Records {@code count} samples of {@code micros} µs (clamped as {@link #recordMicros(long)}).
   */
  public boolean recordMicros(long micros, long count) {
    long value = clampMicros(micros);
    boolean inRange = value == micros;
    if (!inRange) {
      clamped += count;
    }
    histogram.recordValueWithCount(value, count);
    recorded = true;
    return inRange;
  }

  /** A µs value moved into the range: below 0 → 0, above one hour → one hour. */
  public static long clampMicros(long micros) {
    return micros < 0 ? 0 : Math.min(micros, HIGHEST_MICROS);
  }

  /** Records a sample given in ns, rounded to the nearest µs. */
  public boolean recordNanos(long nanos) {
    return recordMicros(Math.round(nanos / 1000.0));
  }

  /** Adds every sample of {@code other} to this histogram. */
  public void add(LatencyHistogram other) {
    histogram.add(other.histogram);
    clamped += other.clamped;
    recorded |= other.recorded;
  }

  /** A new histogram of this one's samples less {@code subset}'s (which must be among them). */
  public LatencyHistogram without(LatencyHistogram subset) {
    Histogram rest = histogram.copy();
    rest.subtract(subset.histogram);
    return new LatencyHistogram(rest);
  }

  /** Samples at or above {@code micros} (the whole bucket that holds it included). */
  public long countAtOrAbove(long micros) {
    if (count() == 0) {
      return 0;
    }
    return histogram.getCountBetweenValues(
        histogram.lowestEquivalentValue(clampMicros(micros)), HIGHEST_MICROS);
  }

  /**
   * Forgets every sample (to reuse one histogram for many small sets, e.g. one per request or per
   * summary): clearing the 189 KB of counts is skipped when nothing was recorded since.
   */
  public void reset() {
    if (recorded) {
      histogram.reset();
      recorded = false;
    }
    clamped = 0;
  }

  public long count() {
    return histogram.getTotalCount();
  }

  /** Samples that were out of range and clamped on record. */
  public long clamped() {
    return clamped;
  }

  /** HdrHistogram's value at {@code percentile} (0–100), in µs. */
  public long percentileMicros(double percentile) {
    return histogram.getValueAtPercentile(percentile);
  }

  /** The largest sample, in µs (HdrHistogram's highest equivalent value). */
  public long maxMicros() {
    return histogram.getMaxValue();
  }

  /** The smallest sample, in µs (HdrHistogram's lowest equivalent value). */
  public long minMicros() {
    return histogram.getMinValue();
  }

  /** The mean, in µs rounded to the nearest µs (from the histogram, so merging keeps it exact). */
  public long meanMicros() {
    return Math.round(histogram.getMean());
  }

  /**
   * The count, mean, min, p50, p90, p99, p99.9, p99.99 and max in ms; only the count when empty.
   */
  public LatencySummary summary() {
    long total = count();
    if (total == 0) {
      return LatencySummary.EMPTY;
    }
    // one walk over the buckets up to the largest sample gives the mean and every percentile:
    // HdrHistogram's getMean and getValueAtPercentile walk them once each, by an iterator for the
    // mean, and a summary took 9 walks of up to 23,000 buckets; the figures are the same (the same
    // thresholds, the same sum in the same order)
    long[] at = new long[SUMMARY_PERCENTILES.length];
    long[] threshold = new long[SUMMARY_PERCENTILES.length];
    for (int p = 0; p < threshold.length; p++) {
      threshold[p] = countAtPercentile(SUMMARY_PERCENTILES[p], total);
    }
    long max = histogram.getMaxValue();
    double sum = 0;
    long cumulative = 0;
    int next = 0;
    for (long v = 0; v <= max; v = histogram.nextNonEquivalentValue(v)) {
      long count = histogram.getCountAtValue(v);
      if (count == 0) {
        continue;
      }
      sum += histogram.medianEquivalentValue(v) * (double) count;
      cumulative += count;
      while (next < threshold.length && cumulative >= threshold[next]) {
        at[next++] = histogram.highestEquivalentValue(v);
      }
    }
    long mean = Math.round((sum * 1.0) / total);
    return new LatencySummary(
        total,
        ms(mean),
        ms(minMicros()),
        ms(at[0]),
        ms(at[1]),
        ms(at[2]),
        ms(at[3]),
        ms(at[4]),
        ms(maxMicros()));
  }

  /** The percentiles of a {@link LatencySummary}, in its order. */
  private static final double[] SUMMARY_PERCENTILES = {50.0, 90.0, 99.0, 99.9, 99.99};

  /** The count HdrHistogram's {@code getValueAtPercentile} looks for, computed as it does. */
  private static long countAtPercentile(double percentile, long total) {
    double requested =
        Math.min(Math.max(Math.nextAfter(percentile, Double.NEGATIVE_INFINITY), 0), 100.0);
    double fpCount = (requested * total) / 100.0;
    return Math.max((long) Math.ceil(fpCount), 1);
  }

  /** One HdrHistogram bucket that holds samples: its range of equivalent values in µs. */
  @FunctionalInterface
  public interface BucketVisitor {
    void bucket(long lowestMicros, long highestMicros, long count);
  }

  /**
   * Visits every bucket that holds samples, lowest first, with its lowest and highest equivalent
   * value in µs (a percentile reports the highest) and its count.
   */
  public void forEachBucket(BucketVisitor visitor) {
    for (HistogramIterationValue v : histogram.recordedValues()) {
      long value = v.getValueIteratedTo();
      visitor.bucket(
          histogram.lowestEquivalentValue(value),
          histogram.highestEquivalentValue(value),
          v.getCountAtValueIteratedTo());
    }
  }

  /** A copy of the underlying HdrHistogram (for encoding). */
  public Histogram toHdr() {
    return histogram.copy();
  }

  Histogram hdr() {
    return histogram;
  }

  /** Integer µs as ms with exactly three decimals. */
  public static BigDecimal ms(long micros) {
    return BigDecimal.valueOf(micros, 3);
  }

  /** A ratio with {@code scale} decimals, half-even; 0 when the denominator is 0. */
  public static BigDecimal ratio(long numerator, long denominator, int scale) {
    if (denominator == 0) {
      return BigDecimal.ZERO.setScale(scale);
    }
    return BigDecimal.valueOf(numerator)
        .divide(BigDecimal.valueOf(denominator), scale, RoundingMode.HALF_EVEN);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LatencyHistogram other && histogram.equals(other.histogram);
  }

  @Override
  public int hashCode() {
    return Objects.hash(count(), maxMicros());
  }

  @Override
  public String toString() {
    return "LatencyHistogram" + summary();
  }
}
