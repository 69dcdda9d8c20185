package io.tpotstream.aggregator.offline;

import io.tpotstream.aggregator.merge.MergeOutput;
import io.tpotstream.aggregator.merge.WindowMerger;
import io.tpotstream.aggregator.stage.PartitionStage;
import io.tpotstream.aggregator.stage.Stage1Output;
import io.tpotstream.aggregator.stage.StageSettings;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.summary.WindowSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The aggregator's statistics without Kafka: the same {@link PartitionStage} and {@link
 * WindowMerger} run over events read in (ts, partition, offset) order as one partition, and the end
 * of the input counts as every producer's final heartbeat. For healthy producers the summaries
 * equal the aggregator's, byte for byte.
 */
public final class OfflineStats {
  private OfflineStats() {}

  /**
   * Summaries of {@code events} (in log order), in the order the aggregator emits them: by window,
   * then series. An event the logic cannot process is reported to {@code problems} and skipped.
   */
  public static List<WindowSummary> compute(
      List<TokenEvent> events, StageSettings settings, Consumer<String> problems) {
    List<ExportedEvents.Positioned> positioned = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      positioned.add(new ExportedEvents.Positioned(events.get(i), 0, i, i + 1));
    }
    return computePositioned(positioned, settings, problems);
  }

  /**
   * Same, for events as {@link ExportedEvents#read} returns them; problems name the event's line.
   */
  public static List<WindowSummary> computePositioned(
      List<ExportedEvents.Positioned> events, StageSettings settings, Consumer<String> problems) {
    List<WindowSummary> summaries = new ArrayList<>();
    PartitionStage stage =
        new PartitionStage(settings, new MapState(), new MapState(), new MapState());
    WindowMerger merger = new WindowMerger(1, new MapState(), new MapState(), settings.slo());
    merger.open("the file");
    MergeOutput merged = (summary, json) -> summaries.add(summary);
    Stage1Output output =
        new Stage1Output() {
          @Override
          public void partial(WindowSummary partial) {
            merger.partial(0, partial, merged);
          }

          @Override
          public void clientPause(long windowStartMs, long pauseMaxUs) {
            merger.clientPause(0, windowStartMs, pauseMaxUs);
          }

          @Override
          public void closedThrough(long windowEndMs) {
            merger.closedThrough(0, windowEndMs, merged);
          }
        };
    long lastTsMs = Long.MIN_VALUE;
    for (ExportedEvents.Positioned p : events) {
      TokenEvent event = p.event();
      try {
        stage.onEvent(event, output);
      } catch (RuntimeException e) {
        problems.accept("line " + p.line() + ": could not process this event: " + e);
      }
      lastTsMs = Math.max(lastTsMs, event.ts());
    }
    if (lastTsMs != Long.MIN_VALUE) {
      stage.endOfInput(lastTsMs, output);
    }
    return summaries;
  }
}
