package io.tpotstream.common.stats;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.util.Arrays;

/**
 * Latency samples (µs) kept as counts per {@link LatencyHistogram} bucket in a small
 * open-addressing table: a few hundred bytes where a full histogram takes 189 KB, and records in
 * nanoseconds. Turned into a {@link LatencyHistogram} only when a summary is built; that histogram
 * equals one that recorded every sample. Values outside 0 µs to 1 h are clamped and counted, as the
 * histogram does.
 */
public final class BucketCounts {
  private static final int MIN_CAPACITY = 16;

  /**
   * Slot i is {@code table[2i]}, the bucket value + 1 (0 marks a free slot), and {@code
   * table[2i+1]}, its count: a key and its count share a cache line, one miss per sample.
   */
  private long[] table;

  private int used;
  private long total;
  private long clamped;

  public BucketCounts() {
    table = new long[2 * MIN_CAPACITY];
  }

  /**
   * Adds {@code count} samples of {@code micros} µs.
   *
   * @return false when the value had to be clamped into 0 µs to 1 h
   */
  public boolean record(long micros, long count) {
    boolean inRange = micros == LatencyHistogram.clampMicros(micros);
    if (!inRange) {
      clamped += count;
    }
    addBucket(LatencyHistogram.bucketMicros(micros), count);
    return inRange;
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
    if (used == 0) {
      reserve(other.used);
    }
    long[] t = other.table;
    for (int i = 0; i < t.length; i += 2) {
      if (t[i] != 0) {
        addBucket(t[i] - 1, t[i + 1]);
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
    if (used == 0) {
      reserve(n); // the first sizes the table; later ones share most buckets: room by need
    }
    for (int i = 0; i < n; i++) {
      long bucket = in.readVarLong();
      long count = in.readVarLong();
      if (bucket < 0 || bucket > LatencyHistogram.HIGHEST_MICROS || count < 0) {
        throw new IllegalArgumentException("not a latency bucket: " + bucket + " × " + count);
      }
      addBucket(bucket, count);
    }
    clamped += clampedIn;
  }

  /** Room for {@code more} new buckets at once: one copy, not one per doubling. */
  private void reserve(int more) {
    int capacity = table.length / 2;
    while (2L * (used + (long) more) > capacity && capacity < 1 << 17) {
      capacity <<= 1;
    }
    if (capacity > table.length / 2) {
      resize(capacity);
    }
  }

  /** Forgets every sample, keeping the table's size (to count the next window's in it). */
  public void clear() {
    Arrays.fill(table, 0);
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
    for (int i = 0; i < table.length; i += 2) {
      if (table[i] != 0) {
        histogram.recordMicros(table[i] - 1, table[i + 1]);
      }
    }
  }

  /** Writes the buckets: [clamped][n][(bucket, count) × n], varints. */
  public void writeTo(BinaryWriter out) {
    out.writeVarLong(clamped);
    out.writeVarLong(used);
    for (int i = 0; i < table.length; i += 2) {
      if (table[i] != 0) {
        out.writeVarLong(table[i] - 1).writeVarLong(table[i + 1]);
      }
    }
  }

  /** Reads what {@link #writeTo} wrote. */
  public static BucketCounts readFrom(BinaryReader in) {
    BucketCounts buckets = new BucketCounts();
    buckets.addFrom(in);
    return buckets;
  }

  private void addBucket(long bucket, long count) {
    long key = bucket + 1;
    long[] t = table;
    int mask = t.length - 2; // slot indexes are even
    int i = slot(key, mask);
    while (t[i] != 0 && t[i] != key) {
      i = (i + 2) & mask;
    }
    total += count;
    if (t[i] == 0) {
      t[i] = key;
      t[i + 1] = count;
      if (++used * 4 > t.length) { // more than half the slots
        resize(t.length); // twice the slots
      }
      return;
    }
    t[i + 1] += count;
  }

  private void resize(int capacity) {
    long[] old = table;
    long[] t = new long[2 * capacity];
    int mask = t.length - 2;
    for (int j = 0; j < old.length; j += 2) {
      if (old[j] != 0) {
        int i = slot(old[j], mask);
        while (t[i] != 0) {
          i = (i + 2) & mask;
        }
        t[i] = old[j];
        t[i + 1] = old[j + 1];
      }
    }
    table = t;
  }

  /** An even index of the table (mask: its length - 2). */
  private static int slot(long key, int mask) {
    return (int) ((key * 0x9E3779B97F4A7C15L) >>> 39) & mask;
  }
}
