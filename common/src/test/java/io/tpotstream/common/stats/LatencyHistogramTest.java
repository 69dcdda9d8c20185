package io.tpotstream.common.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

  /**
   * The summary's one walk over the buckets gives exactly what HdrHistogram's getMean and
   * getValueAtPercentile give, on shapes from one value to heavy tails and the clamped edges.
   */
  @Test
  void theSummaryIsExactlyWhatHdrHistogramsOwnWalksGive() {
    Random random = new Random(42);
    for (int round = 0; round < 300; round++) {
      LatencyHistogram h = new LatencyHistogram();
      int n = 1 + random.nextInt(round % 3 == 0 ? 5 : 20_000);
      for (int i = 0; i < n; i++) {
        long micros =
            switch (round % 4) {
              case 0 -> 1 + random.nextInt(3);
              case 1 -> (long) Math.exp(6 + random.nextGaussian() * 2);
              case 2 -> random.nextInt(10) == 0 ? 1_000_000L + random.nextInt(2_000_000_000) : 500;
              default -> 1 + (long) (random.nextDouble() * LatencyHistogram.HIGHEST_MICROS);
            };
        h.recordMicros(micros, 1 + random.nextInt(3));
      }
      LatencySummary s = h.summary();
      assertEquals(h.count(), s.count());
      assertEquals(LatencyHistogram.ms(h.meanMicros()), s.meanMs(), "round " + round);
      assertEquals(LatencyHistogram.ms(h.percentileMicros(50.0)), s.p50Ms(), "round " + round);
      assertEquals(LatencyHistogram.ms(h.percentileMicros(90.0)), s.p90Ms(), "round " + round);
      assertEquals(LatencyHistogram.ms(h.percentileMicros(99.0)), s.p99Ms(), "round " + round);
      assertEquals(LatencyHistogram.ms(h.percentileMicros(99.9)), s.p999Ms(), "round " + round);
      assertEquals(LatencyHistogram.ms(h.percentileMicros(99.99)), s.p9999Ms(), "round " + round);
      assertEquals(LatencyHistogram.ms(h.maxMicros()), s.maxMs());
      assertEquals(LatencyHistogram.ms(h.minMicros()), s.minMs());
    }
  }

  @Test
  void oneStallIn10000GapsShowsUpAsTheMaxButNotTheMedian() {
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < 9_999; i++) {
      h.recordMicros(1_600);
    }
    h.recordMicros(120_000);

    LatencySummary s = h.summary();
    assertEquals(10_000, s.count());
    assertEquals(new BigDecimal("1.600"), s.p50Ms());
    assertEquals(new BigDecimal("1.600"), s.p99Ms());
    assertEquals(new BigDecimal("1.600"), s.p999Ms());
    // HdrHistogram's P99.99 of 10,000 values is the 9,999th: one stall in 10,000 shows only in max.
    assertEquals(new BigDecimal("1.600"), s.p9999Ms());
    // 120 ms is kept to 3 significant digits.
    assertWithinPrecision(120_000, s.maxMs());
    assertEquals(new BigDecimal("1.600"), s.minMs());
    // mean = (9,999 × 1.6 + 120) / 10,000 = 1.6118 ms
    assertEquals(new BigDecimal("1.612"), s.meanMs());
  }

  @Test
  void twoStallsIn10000GapsReachP9999() {
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < 9_998; i++) {
      h.recordMicros(1_600);
    }
    h.recordMicros(120_000);
    h.recordMicros(135_000);
    assertWithinPrecision(120_000, h.summary().p9999Ms());
    assertWithinPrecision(135_000, h.summary().maxMs());
  }

  @Test
  void percentilesOfAUniformRangeAreExact() {
    LatencyHistogram h = new LatencyHistogram();
    for (int micros = 1; micros <= 1_000; micros++) {
      h.recordMicros(micros);
    }
    LatencySummary s = h.summary();
    assertEquals(new BigDecimal("0.500"), s.p50Ms());
    assertEquals(new BigDecimal("0.900"), s.p90Ms());
    assertEquals(new BigDecimal("0.990"), s.p99Ms());
    assertEquals(new BigDecimal("0.999"), s.p999Ms());
    assertEquals(new BigDecimal("1.000"), s.p9999Ms());
    assertEquals(new BigDecimal("1.000"), s.maxMs());
    assertEquals(new BigDecimal("0.001"), s.minMs());
  }

  @Test
  void mergingTwoHistogramsEqualsRecordingAllSamplesIntoOne() {
    Random random = new Random(42);
    LatencyHistogram all = new LatencyHistogram();
    LatencyHistogram first = new LatencyHistogram();
    LatencyHistogram second = new LatencyHistogram();
    for (int i = 0; i < 50_000; i++) {
      long micros = (long) Math.exp(7 + random.nextGaussian());
      all.recordMicros(micros);
      (i % 3 == 0 ? first : second).recordMicros(micros);
    }
    first.add(second);
    assertEquals(all, first);
    assertEquals(all.summary(), first.summary());
  }

  @Test
  void encodeDecodeIsLossless() {
    Random random = new Random(7);
    LatencyHistogram h = new LatencyHistogram();
    for (int i = 0; i < 20_000; i++) {
      h.recordMicros((long) Math.exp(6 + 2 * random.nextGaussian()));
    }
    LatencyHistogram decoded = HistogramCodec.decode(HistogramCodec.encode(h));
    assertEquals(h, decoded);
    assertEquals(h.summary(), decoded.summary());
    assertEquals(HistogramCodec.encode(h), HistogramCodec.encode(decoded));
  }

  @Test
  void outOfRangeValuesAreClampedAndCountedNeverThrown() {
    LatencyHistogram h = new LatencyHistogram();
    assertFalse(h.recordMicros(-5));
    assertFalse(h.recordMicros(LatencyHistogram.HIGHEST_MICROS * 10));
    h.recordMicros(0);
    assertEquals(3, h.count());
    assertEquals(2, h.clamped());
    assertEquals(0, h.minMicros());
    assertWithinPrecision(LatencyHistogram.HIGHEST_MICROS, LatencyHistogram.ms(h.maxMicros()));
  }

  @Test
  void anEmptyHistogramHasOnlyACount() {
    assertEquals(LatencySummary.EMPTY, new LatencyHistogram().summary());
  }

  @Test
  void garbageIsNotAHistogram() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> HistogramCodec.decode("bm90IGEgaGlzdG9ncmFt"));
    assertEquals(true, e.getMessage().startsWith("not an encoded HdrHistogram"));
  }

  private static void assertWithinPrecision(long expectedMicros, BigDecimal actualMs) {
    long actualMicros = actualMs.movePointRight(3).longValueExact();
    // 3 significant digits: within 0.1 % of the value.
    long tolerance = expectedMicros / 1000;
    assertEquals(expectedMicros, actualMicros, tolerance, "µs");
  }
}
