package io.tpotstream.producer.publish;

/**
 * The producer's wall clock: the wall-clock ms read once at start plus the monotonic time elapsed
 * since, so {@code ts} never goes backwards within a producer, whatever NTP does.
 */
public final class AnchoredClock {
  private final long anchorMs;
  private final long anchorNs;

  private AnchoredClock(long anchorMs, long anchorNs) {
    this.anchorMs = anchorMs;
    this.anchorNs = anchorNs;
  }

  /** A clock anchored now. */
  public static AnchoredClock start() {
    return new AnchoredClock(System.currentTimeMillis(), System.nanoTime());
  }

  /** The epoch ms of the instant {@code nanoTime} (a {@link System#nanoTime()} reading). */
  public long tsMs(long nanoTime) {
    return anchorMs + Math.floorDiv(nanoTime - anchorNs, 1_000_000L);
  }

  /** Epoch ms now. */
  public long nowMs() {
    return tsMs(System.nanoTime());
  }
}
