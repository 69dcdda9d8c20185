package io.tpotstream.sink.compare;

import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.stats.BucketCounts;
import io.tpotstream.common.stats.LatencyHistogram;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A percentile bootstrap of the difference between two runs: each resample draws, with replacement,
 * as many units (windows or requests) as each run has, merges their histograms and takes the
 * percentiles (the statistics core's, as everywhere); the interval of B − A is the middle {@code
 * confidence} share of the resampled differences. A unit without a sample of the statistic (a
 * window that held only warm-up requests, a request with no gap) is no unit: it would only repeat
 * the others' values and make one window look like a sure result.
 */
final class Bootstrap {
  /** The fewest units with samples each side needs for an interval (else no verdict). */
  static final int MIN_UNITS = 2;

  /** The interval of B − A per percentile, µs; null entries where it could not be estimated. */
  record Interval(long lowMicros, long highMicros) {
    boolean excludesZero() {
      return lowMicros > 0 || highMicros < 0;
    }
  }

  private final int resamples;
  private final double confidence;
  private final SplittableRandom random;
  private final LatencyHistogram scratch = new LatencyHistogram();
  private final Progress progress;

  /** {@code progress} counts every resample ({@link #intervals} adds {@code resamples}). */
  Bootstrap(int resamples, double confidence, long seed, Progress progress) {
    this.resamples = resamples;
    this.confidence = confidence;
    this.random = new SplittableRandom(seed);
    this.progress = progress;
  }

  /**
   * The intervals of B − A for each of {@code percentiles}; null when a side has fewer than {@link
   * #MIN_UNITS} units with samples (nothing to resample).
   */
  Interval[] intervals(List<BucketCounts> allA, List<BucketCounts> allB, double[] percentiles) {
    List<BucketCounts> a = withSamples(allA);
    List<BucketCounts> b = withSamples(allB);
    if (a.size() < MIN_UNITS || b.size() < MIN_UNITS) {
      progress.add(resamples); // nothing to resample: these are done
      return null;
    }
    long[][] diffs = new long[percentiles.length][resamples];
    int kept = 0;
    long[] pa = new long[percentiles.length];
    long[] pb = new long[percentiles.length];
    for (int r = 0; r < resamples; r++) {
      progress.add(1);
      boolean okA = resample(a, percentiles, pa);
      boolean okB = resample(b, percentiles, pb);
      if (!okA || !okB) {
        continue; // a resample of empty units only: no value to compare
      }
      for (int k = 0; k < percentiles.length; k++) {
        diffs[k][kept] = pb[k] - pa[k];
      }
      kept++;
    }
    if (kept < 2) {
      return null;
    }
    Interval[] intervals = new Interval[percentiles.length];
    double tail = (1 - confidence) / 2;
    int low = (int) Math.floor(tail * kept);
    int high = Math.max(low, (int) Math.ceil((1 - tail) * kept) - 1);
    for (int k = 0; k < percentiles.length; k++) {
      long[] sorted = Arrays.copyOf(diffs[k], kept);
      Arrays.sort(sorted);
      intervals[k] = new Interval(sorted[low], sorted[high]);
    }
    return intervals;
  }

  private static List<BucketCounts> withSamples(List<BucketCounts> units) {
    return units.stream().filter(u -> !u.isEmpty()).toList();
  }

  private boolean resample(List<BucketCounts> units, double[] percentiles, long[] out) {
    scratch.reset();
    int n = units.size();
    for (int i = 0; i < n; i++) {
      units.get(random.nextInt(n)).addTo(scratch);
    }
    if (scratch.count() == 0) {
      return false;
    }
    for (int k = 0; k < percentiles.length; k++) {
      out[k] = scratch.percentileMicros(percentiles[k]);
    }
    return true;
  }
}
