package io.tpotstream.aggregator.stage1;

import io.tpotstream.common.Windows;
import java.time.Duration;
import java.util.Collection;

/**
 * A partition's close time (docs/design.md, "Time, windows and completeness"), as the end of the
 * last window it closes: the lowest watermark of the producers that still hold the partition, and
 * never past the partition's clock, since a producer that joins now writes events from now on.
 */
final class CloseTime {
  /** No window can close yet. */
  static final long NONE = Long.MIN_VALUE;

  private CloseTime() {}

  /**
   * What one producer has promised on this partition.
   *
   * @param watermarkMs no event of this producer below this time will come
   * @param isFinal the producer has stopped for good
   * @param lastSeenMs the partition's clock when its last heartbeat was read
   */
  record Mark(long watermarkMs, boolean isFinal, long lastSeenMs) {
    /** True while the producer holds windows open: not final, and heard from within the timeout. */
    boolean holds(long clockMs, long producerTimeoutMs) {
      return !isFinal && clockMs - lastSeenMs <= producerTimeoutMs;
    }
  }

  /**
   * The end (epoch ms) of the last window that may close, or {@link #NONE}.
   *
   * <p>With producers that hold the partition, windows whose end + grace is at or below both their
   * lowest watermark and the clock close. With none, a window closes once the clock passes its end
   * + grace: a producer may still join and write into it until then. With {@code closeOnFinal} (an
   * aggregation of one run, which no other producer can join) and every producer final, the window
   * holding the highest final watermark closes at once.
   *
   * @param clockMs the partition's clock (the broker's timestamps, moved on by the wall clock while
   *     the partition is idle), {@link #NONE} before any record
   */
  static long closedThroughMs(
      Collection<Mark> producers,
      long clockMs,
      long windowMs,
      long graceMs,
      long producerTimeoutMs,
      boolean closeOnFinal) {
    long lowestLive = Long.MAX_VALUE;
    long highestFinal = NONE;
    boolean allFinal = !producers.isEmpty();
    for (Mark m : producers) {
      if (m.holds(clockMs, producerTimeoutMs)) {
        lowestLive = Math.min(lowestLive, m.watermarkMs());
      }
      if (m.isFinal()) {
        highestFinal = Math.max(highestFinal, m.watermarkMs());
      } else {
        allFinal = false;
      }
    }
    return closedThroughMs(
        lowestLive, allFinal, highestFinal, clockMs, windowMs, graceMs, closeOnFinal);
  }

  /**
   * The same from what the producers add up to: {@code lowestLiveMs} the lowest watermark of those
   * that hold ({@link Long#MAX_VALUE}: none), {@code allFinal} whether every one is final, {@code
   * highestFinalMs} the highest final watermark.
   */
  static long closedThroughMs(
      long lowestLiveMs,
      boolean allFinal,
      long highestFinalMs,
      long clockMs,
      long windowMs,
      long graceMs,
      boolean closeOnFinal) {
    if (clockMs == NONE) {
      return NONE;
    }
    Duration size = Duration.ofMillis(windowMs);
    if (lowestLiveMs != Long.MAX_VALUE) {
      return Windows.startOf(Math.min(lowestLiveMs, clockMs) - graceMs, size);
    }
    if (closeOnFinal && allFinal) {
      return Windows.startOf(highestFinalMs, size) + windowMs;
    }
    return Windows.startOf(clockMs - graceMs, size);
  }
}
