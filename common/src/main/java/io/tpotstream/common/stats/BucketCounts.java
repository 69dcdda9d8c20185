package io.tpotstream.common.stats;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.util.Arrays;

/**
 * Latency samples (µs) kept as counts per {@link LatencyHistogram} bucket, in an array over the
 * range of buckets seen so far (grown by doubling towards each new bucket): samples cluster, so a
 * window's few thousand buckets take a few tens of KB in order, where a full histogram takes 189
 * KB, and the buckets a stream of samples keeps hitting share cache lines. Turned into a {@link
 * LatencyHistogram} only when a summary is built; that histogram equals one that recorded every
 * sample. Values outside 0 µs to 1 h are clamped and counted, as the histogram does.
 */
public final class BucketCounts {
  // HdrHistogram's bucket arithmetic for 1 µs to 1 h at three significant digits (LatencyHistogram)
  private static final int HALF_MAGNITUDE = 10; // 2 x 10^3 needs sub-buckets of 2^11, half 2^10
  private static final int HALF_COUNT = 1 << HALF_MAGNITUDE;
  private static final long SUB_BUCKET_MASK = (2L << HALF_MAGNITUDE) - 1;
  private static final int LEADING_ZERO_COUNT_BASE = 64 - (HALF_MAGNITUDE + 1);

  /** Buckets from 0 µs to one hour: HdrHistogram's counts array length for this shape. */
  static final int BUCKETS = index(LatencyHistogram.HIGHEST_MICROS) + 1;

  private static final int MIN_LENGTH = 64;
  private static final long[] NONE = new long[0];

  /** {@code counts[i]} is the count of bucket {@code base + i}. */
  private long[] counts = NONE;

  private int base;
  private int used;
  private long total;
  private long clamped;

  /**
   * Adds {@code count} samples of {@code micros} µs.
   *
   * @return false when the value had to be clamped into 0 µs to 1 h
   */
  public boolean record(long micros, long count) {
    long value = LatencyHistogram.clampMicros(micros);
    if (value != micros) {
      clamped += count;
    }
    add(index(value), count);
    return value == micros;
  }

  /**
   * The samples of {@code histogram} (each bucket at its highest equivalent value, which records
   * back into the same bucket): cheap to keep by the thousand and to add into a histogram again,
   * e.g. for a bootstrap over windows or requests.
   */
  public static BucketCounts of(LatencyHistogram histogram) {
    BucketCounts buckets = new BucketCounts();
    histogram.forEachBucket((low, high, count) -> buckets.record(high, count));
    return buckets;
  }

  /** One sample of {@code micros} µs. */
  public static BucketCounts ofOne(long micros) {
    BucketCounts buckets = new BucketCounts();
    buckets.record(micros, 1);
    return buckets;
  }

  /** Adds every sample of {@code other}. */
  public void add(BucketCounts other) {
    long[] c = other.counts;
    for (int i = 0; i < c.length; i++) {
      if (c[i] != 0) {
        add(other.base + i, c[i]);
      }
    }
    clamped += other.clamped;
  }

  /**
   * Adds the samples {@link #writeTo} wrote, read straight from {@code in}: stage 2 adds up a
   * window's partials without building a table for each.
   */
  public void addFrom(BinaryReader in) {
    long clampedIn = in.readVarLong();
    int n = in.readVarInt();
    if (clampedIn < 0 || n < 0) {
      throw new IllegalArgumentException("not latency buckets: " + n + ", clamped " + clampedIn);
    }
    for (int i = 0; i < n; i++) {
      long bucket = in.readVarLong();
      long count = in.readVarLong();
      if (bucket < 0 || bucket > LatencyHistogram.HIGHEST_MICROS || count < 0) {
        throw new IllegalArgumentException("not a latency bucket: " + bucket + " × " + count);
      }
      add(index(bucket), count);
    }
    clamped += clampedIn;
  }

  /** Forgets every sample, keeping the array and its range (to count the next window's in it). */
  public void clear() {
    Arrays.fill(counts, 0);
    used = 0;
    total = 0;
    clamped = 0;
  }

  /** Samples recorded. */
  public long count() {
    return total;
  }

  /** Samples that were outside the range and clamped. */
  public long clamped() {
    return clamped;
  }

  public boolean isEmpty() {
    return total == 0;
  }

  /** The histogram of these samples. */
  public LatencyHistogram toHistogram() {
    LatencyHistogram histogram = new LatencyHistogram();
    addTo(histogram);
    return histogram;
  }

  /** Records these samples into {@code histogram} (their clamped count is not carried over). */
  public void addTo(LatencyHistogram histogram) {
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] != 0) {
        histogram.recordMicros(value(base + i), counts[i]);
      }
    }
  }

  /** Writes the buckets, lowest first: [clamped][n][(bucket, count) × n], varints. */
  public void writeTo(BinaryWriter out) {
    out.writeVarLong(clamped);
    out.writeVarLong(used);
    for (int i = 0; i < counts.length; i++) {
      if (counts[i] != 0) {
        out.writeVarLong(value(base + i)).writeVarLong(counts[i]);
      }
    }
  }

  /** Reads what {@link #writeTo} wrote. */
  public static BucketCounts readFrom(BinaryReader in) {
    BucketCounts buckets = new BucketCounts();
    buckets.addFrom(in);
    return buckets;
  }

  private void add(int index, long count) {
    if (count == 0) {
      return;
    }
    int i = index - base;
    if (i < 0 || i >= counts.length) {
      cover(index);
      i = index - base;
    }
    long before = counts[i];
    if (before == 0) {
      used++;
    }
    counts[i] = before + count;
    total += count;
  }

  /** Grows the array (at least doubling it) to reach bucket {@code index}, room on that side. */
  private void cover(int index) {
    if (counts.length == 0) {
      counts = new long[MIN_LENGTH];
      base = Math.max(0, Math.min(index - MIN_LENGTH / 2, BUCKETS - MIN_LENGTH));
      return;
    }
    int low = Math.min(base, index);
    int high = Math.max(base + counts.length - 1, index);
    int length = 2 * counts.length;
    while (length < high - low + 1) {
      length *= 2;
    }
    length = Math.min(length, BUCKETS);
    int grownBase = index < base ? Math.max(0, high + 1 - length) : low;
    grownBase = Math.min(grownBase, BUCKETS - length);
    long[] grown = new long[length];
    System.arraycopy(counts, 0, grown, base - grownBase, counts.length);
    counts = grown;
    base = grownBase;
  }

  /** HdrHistogram's counts index of a µs value in range (its bucket). */
  static int index(long micros) {
    int bucket = LEADING_ZERO_COUNT_BASE - Long.numberOfLeadingZeros(micros | SUB_BUCKET_MASK);
    int subBucket = (int) (micros >>> bucket);
    return ((bucket + 1) << HALF_MAGNITUDE) + subBucket - HALF_COUNT;
  }

  /** The lowest µs value of the bucket at counts index {@code index}. */
  static long value(int index) {
    int bucket = (index >> HALF_MAGNITUDE) - 1;
    int subBucket = (index & (HALF_COUNT - 1)) + HALF_COUNT;
    if (bucket < 0) {
      subBucket -= HALF_COUNT;
      bucket = 0;
    }
    return (long) subBucket << bucket;
  }
}
