package io.tpotstream.simulator.profile;

/**
 * Injected faults, each a probability per request. {@code http429} and {@code http500} replace the
 * response (429 carries {@code Retry-After: retryAfterSeconds}); {@code cut} closes the connection
 * before the stream ends (after {@code cutAfterChunks} chunks when set, else after a uniform
 * 1..n-1); {@code malformed} inserts one {@code data:} line of invalid JSON before one chunk
 * ({@code malformedBeforeSeq} when set, else a uniform one) and the stream goes on.
 */
public record ErrorRates(
    double http429,
    int retryAfterSeconds,
    double http500,
    double cut,
    Integer cutAfterChunks,
    double malformed,
    Integer malformedBeforeSeq) {
  public static final ErrorRates NONE = new ErrorRates(0, 1, 0, 0, null, 0, null);

  public ErrorRates {
    requireRate(http429, "http429");
    requireRate(http500, "http500");
    requireRate(cut, "cut");
    requireRate(malformed, "malformed");
    if (http429 + http500 > 1) {
      throw new IllegalArgumentException(
          "http429 + http500 must be at most 1, got " + (http429 + http500));
    }
    if (retryAfterSeconds < 0) {
      throw new IllegalArgumentException(
          "retryAfterSeconds must be >= 0, got " + retryAfterSeconds);
    }
    if (cutAfterChunks != null && cutAfterChunks < 0) {
      throw new IllegalArgumentException("cutAfterChunks must be >= 0, got " + cutAfterChunks);
    }
    if (malformedBeforeSeq != null && malformedBeforeSeq < 0) {
      throw new IllegalArgumentException(
          "malformedBeforeSeq must be >= 0, got " + malformedBeforeSeq);
    }
  }

  private static void requireRate(double rate, String name) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException(name + " must be a probability in [0, 1], got " + rate);
    }
  }
}
