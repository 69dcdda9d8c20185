package io.tpotstream.simulator.profile;

import java.util.random.RandomGenerator;

/** A distribution of durations (a TTFT, a gap or a stall), drawn in ns. */
public sealed interface Distribution
    permits Distribution.Constant, Distribution.Normal, Distribution.LogNormal {

  /** One draw, in ns, never negative. */
  long sampleNs(RandomGenerator random);

  /** Always {@code ms}. */
  record Constant(double ms) implements Distribution {
    public Constant {
      requireNonNegative(ms, "ms");
    }

    @Override
    public long sampleNs(RandomGenerator random) {
      return toNs(ms);
    }
  }

  /**
   * Normal with mean {@code meanMs} and standard deviation {@code stdDevMs}, clamped to [min, max].
   */
  record Normal(double meanMs, double stdDevMs, double minMs, double maxMs)
      implements Distribution {
    public Normal {
      requireNonNegative(meanMs, "meanMs");
      requireNonNegative(stdDevMs, "stdDevMs");
      requireRange(minMs, maxMs);
    }

    @Override
    public long sampleNs(RandomGenerator random) {
      return toNs(clamp(meanMs + stdDevMs * random.nextGaussian(), minMs, maxMs));
    }
  }

  /**
   * Log-normal: {@code medianMs · e^(sigma·Z)}, Z standard normal, clamped to [min, max]. Its P99
   * is {@code medianMs · e^(2.326·sigma)}.
   */
  record LogNormal(double medianMs, double sigma, double minMs, double maxMs)
      implements Distribution {
    /** The z-score of the 99th percentile of a standard normal. */
    public static final double Z_P99 = 2.3263478740408408;

    public LogNormal {
      if (!(medianMs > 0)) {
        throw new IllegalArgumentException("medianMs must be above 0, got " + medianMs);
      }
      requireNonNegative(sigma, "sigma");
      requireRange(minMs, maxMs);
    }

    /** The log-normal with this median and P99, unclamped. */
    public static LogNormal ofMedianAndP99(double medianMs, double p99Ms) {
      if (!(p99Ms >= medianMs)) {
        throw new IllegalArgumentException(
            "p99Ms must be at least medianMs (" + medianMs + "), got " + p99Ms);
      }
      return new LogNormal(medianMs, Math.log(p99Ms / medianMs) / Z_P99, 0, Double.MAX_VALUE);
    }

    @Override
    public long sampleNs(RandomGenerator random) {
      return toNs(clamp(medianMs * Math.exp(sigma * random.nextGaussian()), minMs, maxMs));
    }
  }

  private static long toNs(double ms) {
    return Math.max(0, Math.round(ms * 1_000_000.0));
  }

  private static double clamp(double ms, double minMs, double maxMs) {
    return Math.min(maxMs, Math.max(minMs, ms));
  }

  private static void requireNonNegative(double value, String name) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(name + " must be a finite number >= 0, got " + value);
    }
  }

  private static void requireRange(double minMs, double maxMs) {
    requireNonNegative(minMs, "minMs");
    if (!(maxMs >= minMs)) {
      throw new IllegalArgumentException(
          "maxMs must be at least minMs (" + minMs + "), got " + maxMs);
    }
  }
}
