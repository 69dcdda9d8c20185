package io.tpotstream.aggregator.stage1;

import io.tpotstream.common.Windows;
import java.time.Duration;
import java.util.Collection;

/**
 * A partition's close time from its producers' watermarks (docs/design.md, "Time, windows and
 * completeness"), as the end of the last window it closes.
 */
final class CloseTime {
  /** No window can close yet. */
  static final long NONE = Long.MIN_VALUE;

  private CloseTime() {}

  /** What one producer has promised on this partition. */
  record Mark(long watermarkMs, boolean isFinal) {}

  /**
   * The end (epoch ms) of the last window that may close, or {@link #NONE}. With live producers
   * (neither final nor more than {@code producerTimeoutMs} behind the highest watermark) the close
   * time is their lowest watermark and windows with end + grace at or below it close; when every
   * producer left is final, the window holding the highest final watermark closes too.
   */
  static long closedThroughMs(
      Collection<Mark> producers, long windowMs, long graceMs, long producerTimeoutMs) {
    if (producers.isEmpty()) {
      return NONE;
    }
    long highest = Long.MIN_VALUE;
    for (Mark m : producers) {
      highest = Math.max(highest, m.watermarkMs());
    }
    long lowestLive = Long.MAX_VALUE;
    for (Mark m : producers) {
      boolean stale = m.watermarkMs() < highest - producerTimeoutMs;
      if (!m.isFinal() && !stale) {
        lowestLive = Math.min(lowestLive, m.watermarkMs());
      }
    }
    Duration size = Duration.ofMillis(windowMs);
    if (lowestLive == Long.MAX_VALUE) {
      return Windows.startOf(highest, size) + windowMs;
    }
    return Windows.startOf(lowestLive - graceMs, size);
  }
}
