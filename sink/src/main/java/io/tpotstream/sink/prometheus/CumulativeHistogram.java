package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.NativeHistogramBuckets;
import io.tpotstream.common.stats.LatencyHistogram;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The samples of every window of one series added up since the sink started, as a Prometheus
 * histogram with both classic buckets (fixed bounds) and native buckets (schema {@value
 * #NATIVE_SCHEMA}). Each HdrHistogram bucket counts at its highest equivalent value, the value a
 * percentile reports; the sum adds HdrHistogram's median equivalent values (as its mean does).
 * Counts only grow. Not thread-safe.
 */
final class CumulativeHistogram {
  /** Native bucket boundaries at 2^(2^-3): 8 per doubling, each about 9 % wide. */
  static final int NATIVE_SCHEMA = 3;

  private static final double BUCKETS_PER_DOUBLING = 1 << NATIVE_SCHEMA;

  private final long[] boundsMicros;
  private final double[] boundsSeconds;
  private final long[] counts;
  private final Map<Integer, Long> nativeCounts = new TreeMap<>();
  private long zeroCount;
  private long sumMicros;

  CumulativeHistogram(long[] boundsMicros) {
    this.boundsMicros = boundsMicros.clone();
    this.boundsSeconds = new double[boundsMicros.length + 1];
    for (int i = 0; i < boundsMicros.length; i++) {
      boundsSeconds[i] = boundsMicros[i] / 1e6;
    }
    boundsSeconds[boundsMicros.length] = Double.POSITIVE_INFINITY;
    this.counts = new long[boundsMicros.length + 1];
  }

  /** Adds every sample of {@code window}. */
  void add(LatencyHistogram window) {
    window.forEachBucket(
        (lowest, highest, count) -> {
          int i = Arrays.binarySearch(boundsMicros, highest);
          counts[i >= 0 ? i : -i - 1] += count;
          sumMicros += (lowest + (highest - lowest + 1) / 2) * count;
          if (highest == 0) {
            zeroCount += count;
          } else {
            nativeCounts.merge(nativeIndex(highest / 1e6), count, Long::sum);
          }
        });
  }

  long count() {
    return Arrays.stream(counts).sum();
  }

  /** The histogram labelled {@code labels}, counting since {@code createdMs} (epoch ms). */
  HistogramDataPointSnapshot snapshot(Labels labels, long createdMs) {
    NativeHistogramBuckets.Builder positive = NativeHistogramBuckets.builder();
    nativeCounts.forEach(positive::bucket);
    HistogramDataPointSnapshot.Builder point = HistogramDataPointSnapshot.builder();
    point.createdTimestampMillis(createdMs);
    return point
        .labels(labels)
        .sum(sumMicros / 1e6)
        .classicHistogramBuckets(ClassicHistogramBuckets.of(boundsSeconds, counts.clone()))
        .nativeSchema(NATIVE_SCHEMA)
        .nativeZeroThreshold(0)
        .nativeZeroCount(zeroCount)
        .nativeBucketsForPositiveValues(positive.build())
        .build();
  }

  /** The native bucket holding {@code seconds}: the smallest i with seconds <= base^i. */
  static int nativeIndex(double seconds) {
    int i = (int) Math.ceil(Math.log(seconds) / Math.log(2) * BUCKETS_PER_DOUBLING);
    while (upperBound(i - 1) >= seconds) {
      i--;
    }
    while (upperBound(i) < seconds) {
      i++;
    }
    return i;
  }

  /** The upper bound of native bucket {@code i}, 2^(i/8): exact at powers of two. */
  private static double upperBound(int i) {
    return Math.pow(2, i / BUCKETS_PER_DOUBLING);
  }
}
