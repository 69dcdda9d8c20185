package io.tpotstream.common.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.util.Random;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class BucketCountsTest {

  /**
   * Bucket counts, in a table or an array however far it grew, hold exactly the histogram of every
   * sample: after recording, after a round trip through their binary form and after a merge, of the
   * counts or of their binary form; and cleared, as new.
   */
  @Test
  void bucketCountsAreTheHistogramOfTheirSamples() {
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      BucketCounts a = new BucketCounts();
      BucketCounts b = new BucketCounts();
      LatencyHistogram all = new LatencyHistogram();
      LatencyHistogram onlyA = new LatencyHistogram();
      int n = 1 + random.nextInt(round % 2 == 0 ? 10 : 5_000);
      for (int i = 0; i < n; i++) {
        long micros =
            switch (round % 4) {
              case 0 -> random.nextInt(4);
              case 1 -> (long) Math.exp(8 + random.nextGaussian() * 2);
              // clustered, as a busy window's gaps are (kept in an array), with a rare outlier
              case 2 ->
                  random.nextInt(100) == 0
                      ? random.nextInt(1 << 20)
                      : 20_000 + random.nextInt(9_000);
              default -> random.nextLong() >> random.nextInt(64);
            };
        long count = 1 + random.nextInt(3);
        boolean toA = random.nextBoolean();
        assertEquals(
            micros == LatencyHistogram.clampMicros(micros),
            (toA ? a : b).record(micros, count),
            "in range");
        all.recordMicros(micros, count);
        if (toA) {
          onlyA.recordMicros(micros, count);
        }
      }
      assertEquals(onlyA, a.toHistogram(), "round " + round);
      BinaryWriter out = new BinaryWriter();
      a.writeTo(out);
      BucketCounts read = BucketCounts.readFrom(new BinaryReader(out.toByteArray()));
      assertEquals(onlyA, read.toHistogram(), "round trip, round " + round);
      assertEquals(a.count(), read.count());
      assertEquals(a.clamped(), read.clamped());
      BucketCounts fromBytes = BucketCounts.readFrom(new BinaryReader(out.toByteArray()));
      read.add(b);
      assertEquals(all, read.toHistogram(), "merged, round " + round);
      BinaryWriter bOut = new BinaryWriter();
      b.writeTo(bOut);
      fromBytes.addFrom(new BinaryReader(bOut.toByteArray()));
      assertEquals(all, fromBytes.toHistogram(), "merged from bytes, round " + round);
      assertEquals(all.count(), fromBytes.count());
      assertEquals(all.clamped(), fromBytes.clamped());
      assertEquals(all.count(), read.count());
      assertEquals(all.clamped(), read.clamped());
      // cleared, as stage 1 reuses a series' counts window after window: as new
      a.clear();
      assertEquals(0, a.count());
      a.add(b);
      assertEquals(b.toHistogram(), a.toHistogram(), "reused, round " + round);
    }
  }

  /**
   * The array keeps its counts as ints: a bucket that passes what an int holds sends every count
   * back to the table, exactly, whether it got there in the array or in the table; cleared, the
   * counts are as new.
   */
  @Test
  void countsBeyondAnIntStayExact() {
    BucketCounts inArray = new BucketCounts();
    LatencyHistogram expected = new LatencyHistogram();
    for (int micros = 20_000; micros < 22_000; micros++) { // enough buckets for the array
      inArray.record(micros, 1);
      expected.recordMicros(micros, 1);
    }
    for (long big : new long[] {Integer.MAX_VALUE, Integer.MAX_VALUE, 5L << 32}) {
      inArray.record(21_000, big);
      expected.recordMicros(21_000, big);
    }
    inArray.record(90_000, 3);
    expected.recordMicros(90_000, 3);
    assertEquals(expected, inArray.toHistogram());
    assertEquals(expected.count(), inArray.count());
    BinaryWriter out = new BinaryWriter();
    inArray.writeTo(out);
    assertEquals(
        expected, BucketCounts.readFrom(new BinaryReader(out.toByteArray())).toHistogram());

    BucketCounts inTable = new BucketCounts();
    LatencyHistogram expectedToo = new LatencyHistogram();
    inTable.record(1_000, 3_000_000_000L);
    expectedToo.recordMicros(1_000, 3_000_000_000L);
    for (int micros = 1_001; micros < 2_000; micros++) { // would have moved into an array
      inTable.record(micros, 2);
      expectedToo.recordMicros(micros, 2);
    }
    assertEquals(expectedToo, inTable.toHistogram());
    inTable.add(inArray);
    expectedToo.add(expected);
    assertEquals(expectedToo, inTable.toHistogram());

    inArray.clear();
    LatencyHistogram again = new LatencyHistogram();
    for (int micros = 20_000; micros < 22_000; micros++) {
      inArray.record(micros, 7);
      again.recordMicros(micros, 7);
    }
    assertEquals(again, inArray.toHistogram());
    assertEquals(again.count(), inArray.count());
  }

  /**
   * The bucket arithmetic is HdrHistogram's for the latency histogram's shape: every counts index
   * is the bucket of its own lowest value, and any value's bucket starts at the lowest equivalent
   * value HdrHistogram gives it.
   */
  @Test
  void bucketIndexesAreHdrHistogramsBuckets() {
    Histogram shape =
        new Histogram(1, LatencyHistogram.HIGHEST_MICROS, LatencyHistogram.SIGNIFICANT_DIGITS);
    for (int i = 0; i < BucketCounts.BUCKETS; i++) {
      long low = BucketCounts.value(i);
      assertEquals(i, BucketCounts.index(low), "index " + i);
      assertEquals(low, shape.lowestEquivalentValue(low), "index " + i);
    }
    // one hour is in the last bucket
    assertEquals(
        shape.lowestEquivalentValue(LatencyHistogram.HIGHEST_MICROS),
        BucketCounts.value(BucketCounts.BUCKETS - 1));
    Random random = new Random(11);
    for (int k = 0; k < 100_000; k++) {
      long micros = LatencyHistogram.clampMicros(random.nextLong() >>> (1 + random.nextInt(63)));
      assertEquals(
          shape.lowestEquivalentValue(micros),
          BucketCounts.value(BucketCounts.index(micros)),
          "value " + micros);
    }
  }
}
