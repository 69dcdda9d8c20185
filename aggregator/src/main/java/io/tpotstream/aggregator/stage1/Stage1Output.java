package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;

/** What stage 1 emits for its partition when its close time crosses window ends. */
public interface Stage1Output {
  /**
   * The partition's partial of one closed (series, window): {@code counts} are valid during this
   * call only (stage 1 counts the series' next window in them); copy what you keep.
   */
  void partial(long windowStartMs, SeriesName series, WindowCounts counts);

  /**
   * The producers' worst own pause and worst event-loop lag (µs) reported in the closed window
   * starting at this time; a negative value means none was reported.
   */
  void windowHealth(long windowStartMs, long clientPauseMaxUs, long loopLagMaxUs);

  /** Every window ending at or before {@code windowEndMs} is closed on this partition. */
  void closedThrough(long windowEndMs);
}
