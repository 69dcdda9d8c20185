package io.tpotstream.simulator.profile;

/**
 * A stall at a known place: the gap before output chunk {@code beforeSeq} (0-based, so 1 is the gap
 * between the first and the second chunk) is exactly {@code gapMs}.
 */
public record FixedStall(int beforeSeq, double gapMs) {
  public FixedStall {
    if (beforeSeq < 1) {
      throw new IllegalArgumentException(
          "beforeSeq must be at least 1 (chunk 0 waits for the TTFT), got " + beforeSeq);
    }
    if (!(gapMs >= 0) || Double.isInfinite(gapMs)) {
      throw new IllegalArgumentException("gapMs must be a finite number >= 0, got " + gapMs);
    }
  }
}
