package io.tpotstream.aggregator.stage;

import io.tpotstream.common.summary.WindowSummary;

/** What stage 1 emits for its partition when its close time crosses window ends. */
public interface Stage1Output {
  /** The partition's partial summary of one closed (series, window). */
  void partial(WindowSummary partial);

  /** The producers' worst pause (µs) reported in the closed window starting at this time. */
  void clientPause(long windowStartMs, long pauseMaxUs);

  /** Every window ending at or before {@code windowEndMs} is closed on this partition. */
  void closedThrough(long windowEndMs);
}
