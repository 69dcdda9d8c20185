package io.tpotstream.common.stats;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.util.Arrays;

/**
 * Latency samples (µs) kept as counts per {@link LatencyHistogram} bucket, where a full histogram
 * takes 189 KB: a few samples in a small open-addressing table by bucket (its size follows the
 * buckets used), and once that table would take more room than an array over the range of buckets
 * seen, in such an array (grown by doubling towards each new bucket): a window of many samples has
 * them clustered, in neighbouring cache lines, a sparse one keeps the table. The array's counts are
 * ints, half the cache of longs (a bucket's increment is the aggregator's hottest memory access:
 * BENCHMARKS.md, B1); a bucket that would pass an int sends every count back to the table, whose
 * counts are longs, until the next {@link #clear}. Turned into a {@link LatencyHistogram} only when
 * a summary is built; that histogram equals one that recorded every sample. Values outside 0 µs to
 * 1 h are clamped and counted, as the histogram does.
 */
public final class BucketCounts {
  // HdrHistogram's bucket arithmetic for 1 µs to 1 h at three significant digits (LatencyHistogram)
  private static final int HALF_MAGNITUDE = 10; // 2 x 10^3 needs sub-buckets of 2^11, half 2^10
  private static final int HALF_COUNT = 1 << HALF_MAGNITUDE;
  private static final long SUB_BUCKET_MASK = (2L << HALF_MAGNITUDE) - 1;
  private static final int LEADING_ZERO_COUNT_BASE = 64 - (HALF_MAGNITUDE + 1);

  /** Buckets from 0 µs to one hour: HdrHistogram's counts array length for this shape. */
  static final int BUCKETS = index(LatencyHistogram.HIGHEST_MICROS) + 1;

  private static final int MIN_CAPACITY = 16;
  private static final int MIN_LENGTH = 64;

  /**
   * While sparse: slot i is {@code table[2i]}, the bucket's index + 1 (0 marks a free slot), and
   * {@code table[2i+1]}, its count. Null once dense.
   */
  private long[] table = new long[2 * MIN_CAPACITY];

  /** Once dense: {@code counts[i]} is the count of bucket {@code base + i}; null while sparse. */
  private int[] counts;

  /** A count passed what an int holds: the table keeps every count until cleared. */
  private boolean wide;

  private int base;
  private int lowest = Integer.MAX_VALUE; // the range of the buckets holding samples
  private int highest = -1;
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
    other.forEach(this::add);
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

  /** Forgets every sample, keeping the room (to count the next window's in it). */
  public void clear() {
    if (counts == null) {
      Arrays.fill(table, 0);
      wide = false;
    } else if (used > 0) {
      Arrays.fill(counts, lowest - base, highest - base + 1, 0);
    }
    lowest = Integer.MAX_VALUE;
    highest = -1;
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
    forEach((index, count) -> histogram.recordMicros(value(index), count));
  }

  /** Writes the buckets: [clamped][n][(bucket, count) × n], varints. */
  public void writeTo(BinaryWriter out) {
    out.writeVarLong(clamped);
    out.writeVarLong(used);
    forEach((index, count) -> out.writeVarLong(value(index)).writeVarLong(count));
  }

  /** A bucket that holds samples: its counts index and how many. */
  @FunctionalInterface
  private interface Bucket {
    void visit(int index, long count);
  }

  /** Visits every bucket that holds samples: the array's in order, the table's in slot order. */
  private void forEach(Bucket visitor) {
    if (counts != null) {
      for (int index = lowest; index <= highest; index++) {
        if (counts[index - base] != 0) {
          visitor.visit(index, counts[index - base]);
        }
      }
    } else {
      for (int i = 0; i < table.length; i += 2) {
        if (table[i] != 0) {
          visitor.visit((int) table[i] - 1, table[i + 1]);
        }
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
    total += count;
    if (counts == null) {
      addSparse(index, count);
      return;
    }
    int i = index - base;
    if (i < 0 || i >= counts.length) {
      cover(index);
      i = index - base;
    }
    int before = counts[i];
    if (count > Integer.MAX_VALUE - before) {
      toWide();
      addSparse(index, count);
      return;
    }
    if (before == 0) {
      used++;
      lowest = Math.min(lowest, index);
      highest = Math.max(highest, index);
    }
    counts[i] = (int) (before + count);
  }

  private void addSparse(int index, long count) {
    long key = index + 1L;
    long[] t = table;
    int mask = t.length - 2; // slot indexes are even
    int i = slot(key, mask);
    while (t[i] != 0 && t[i] != key) {
      i = (i + 2) & mask;
    }
    boolean added = t[i] == 0;
    t[i] = key;
    t[i + 1] += count;
    wide |= t[i + 1] > Integer.MAX_VALUE;
    if (!added) {
      return;
    }
    lowest = Math.min(lowest, index);
    highest = Math.max(highest, index);
    if (++used * 4 > t.length) { // more than half the slots: twice the room, or an array of no more
      // than twice that
      int span = highest - lowest + 1;
      int length = Math.min(BUCKETS, Math.max(MIN_LENGTH, Integer.highestOneBit(span - 1) << 1));
      if (!wide && length <= 4 * t.length) {
        toDense(length);
      } else {
        resize(t.length);
      }
    }
  }

  /** The table's buckets moved into an array of {@code length} over their range. */
  private void toDense(int length) {
    long[] t = table;
    counts = new int[length];
    base = Math.max(0, Math.min(lowest, BUCKETS - length));
    for (int j = 0; j < t.length; j += 2) {
      if (t[j] != 0) {
        counts[(int) t[j] - 1 - base] = (int) t[j + 1]; // not wide: each fits
      }
    }
    table = null;
  }

  /** The array's buckets moved back into a table with at least half of its slots free. */
  private void toWide() {
    int capacity = MIN_CAPACITY;
    while (capacity < 2 * used) {
      capacity *= 2;
    }
    long[] t = new long[2 * capacity];
    for (int index = lowest; index <= highest; index++) {
      if (counts[index - base] != 0) {
        put(t, index + 1L, counts[index - base]);
      }
    }
    table = t;
    counts = null;
    wide = true;
  }

  private void resize(int capacity) {
    long[] old = table;
    long[] t = new long[2 * capacity];
    for (int j = 0; j < old.length; j += 2) {
      if (old[j] != 0) {
        put(t, old[j], old[j + 1]);
      }
    }
    table = t;
  }

  /** Puts a bucket not yet in table {@code t}, which has a free slot. */
  private static void put(long[] t, long key, long count) {
    int mask = t.length - 2;
    int i = slot(key, mask);
    while (t[i] != 0) {
      i = (i + 2) & mask;
    }
    t[i] = key;
    t[i + 1] = count;
  }

  /** An even index of the table (mask: its length - 2). */
  private static int slot(long key, int mask) {
    return (int) ((key * 0x9E3779B97F4A7C15L) >>> 39) & mask;
  }

  /** Grows the array (at least doubling it) to reach bucket {@code index}, room on that side. */
  private void cover(int index) {
    int low = Math.min(base, index);
    int high = Math.max(base + counts.length - 1, index);
    int length = 2 * counts.length;
    while (length < high - low + 1) {
      length *= 2;
    }
    length = Math.min(length, BUCKETS);
    int grownBase = index < base ? Math.max(0, high + 1 - length) : low;
    grownBase = Math.min(grownBase, BUCKETS - length);
    int[] grown = new int[length];
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
