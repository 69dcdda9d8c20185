package io.tpotstream.common.stats;

/**
 * The non-empty buckets of a {@link LatencyHistogram}: each bucket's value (µs, HdrHistogram's
 * highest equivalent value, which records back into the same bucket) and count. Cheap to keep by
 * the thousand and to add into a histogram again, e.g. for a bootstrap over windows or requests.
 */
public record SparseHistogram(long[] micros, long[] counts) {
  public static final SparseHistogram EMPTY = new SparseHistogram(new long[0], new long[0]);

  /** Samples in all buckets. */
  public long count() {
    long n = 0;
    for (long c : counts) {
      n += c;
    }
    return n;
  }
}
