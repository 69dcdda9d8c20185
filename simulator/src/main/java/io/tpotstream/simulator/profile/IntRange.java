package io.tpotstream.simulator.profile;

import java.util.random.RandomGenerator;

/** Whole numbers drawn uniformly from {@code [min, max]}. */
public record IntRange(int min, int max) {
  public IntRange {
    if (min < 1 || max < min) {
      throw new IllegalArgumentException(
          "a range needs 1 <= min <= max, got min " + min + ", max " + max);
    }
  }

  public static IntRange exactly(int value) {
    return new IntRange(value, value);
  }

  public int sample(RandomGenerator random) {
    return min == max ? min : min + random.nextInt(max - min + 1);
  }
}
