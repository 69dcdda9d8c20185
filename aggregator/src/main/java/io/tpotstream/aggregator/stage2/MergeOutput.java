package io.tpotstream.aggregator.stage2;

import io.tpotstream.common.summary.WindowSummary;
import java.util.List;

/** What stage 2 emits: final summaries, and news a user wants logged. */
public interface MergeOutput {
  /** A final summary; {@code json} is its encoding (WindowSummaryCodec). */
  void summary(WindowSummary summary, byte[] json);

  /** A partial for an already finalised window was dropped; {@code droppedTotal} so far. */
  default void droppedPartial(
      int partition, String series, long windowStartMs, long droppedTotal) {}

  /**
   * The window ending at {@code windowEndMs} has data but waits for the markers of these input
   * partitions (said once per change).
   */
  default void waiting(long windowEndMs, List<Integer> partitions) {}
}
