package io.tpotstream.aggregator.offline;

import io.tpotstream.aggregator.merge.MergeOutput;
import io.tpotstream.aggregator.merge.WindowMerger;
import io.tpotstream.aggregator.stage.PartitionStage;
import io.tpotstream.aggregator.stage.Stage1Output;
import io.tpotstream.aggregator.stage.StageSettings;
import io.tpotstream.aggregator.state.MapState;
import io.tpotstream.common.archive.ArchivedRecord;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.summary.WindowSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The aggregator's statistics without Kafka: the same {@link PartitionStage} and {@link
 * WindowMerger} run over events read in the replay order ({@link ArchivedRecord#REPLAY_ORDER}) as
 * one partition, and the end of the input counts as every producer's final heartbeat. For healthy
 * producers the summaries equal the aggregator's, byte for byte.
 */
public final class OfflineStats {
  private OfflineStats() {}

  /**
   * Summaries of {@code events} (in log order), in the order the aggregator emits them: by window,
   * then series. An event the logic cannot process is reported to {@code problems} and skipped.
   */
  public static List<WindowSummary> compute(
      List<TokenEvent> events, StageSettings settings, Consumer<String> problems) {
    Session session = new Session(settings, problems);
    events.forEach(session::add);
    return session.finish();
  }

  /**
   * Same, for the records of an archive in replay order ({@link
   * io.tpotstream.common.archive.ArchiveReader}); a record that is not a token event is reported to
   * {@code problems} with its line ("line N: why") and skipped. {@code progress}, when not null,
   * counts the records.
   */
  public static List<WindowSummary> computeArchived(
      List<ArchivedRecord> records,
      StageSettings settings,
      Consumer<String> problems,
      Progress progress) {
    Session session = new Session(settings, problems);
    long counted = 0;
    for (ArchivedRecord record : records) {
      TokenEvent event;
      try {
        event = decode(record);
      } catch (TokenEventFormatException e) {
        problems.accept("line " + record.line() + ": " + e.getMessage());
        continue;
      } finally {
        if (progress != null && (++counted & 4095) == 0) {
          progress.set(counted);
        }
      }
      session.add(event, record.line());
    }
    if (progress != null) {
      progress.set(counted);
    }
    return session.finish();
  }

  /** The one place an archived value becomes an event for the stages. */
  static TokenEvent decode(ArchivedRecord record) {
    return TokenEventCodec.decode(record.valueBytes());
  }

  /** One pass of the stages over events given one at a time, in log order. */
  public static final class Session {
    private final List<WindowSummary> summaries = new ArrayList<>();
    private final Consumer<String> problems;
    private long events;
    private final PartitionStage stage;
    private final WindowMerger merger = new WindowMerger(1, new MapState(), new MapState());
    private final Stage1Output output;
    private long lastTsMs = Long.MIN_VALUE;

    /** {@code problems} hears about each event the logic could not process. */
    public Session(StageSettings settings, Consumer<String> problems) {
      this.problems = problems;
      stage = new PartitionStage(settings, new MapState(), new MapState(), new MapState());
      merger.open("the file");
      MergeOutput merged = (summary, json) -> summaries.add(summary);
      output =
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
    }

    /** Applies the next event. */
    public void add(TokenEvent event) {
      add(event, events + 1);
    }

    /** Applies the next event, read from line {@code line} of a file. */
    public void add(TokenEvent event, long line) {
      events++;
      try {
        stage.onEvent(event, output);
      } catch (RuntimeException e) {
        problems.accept("line " + line + ": could not process this event: " + e);
      }
      lastTsMs = Math.max(lastTsMs, event.ts());
    }

    /**
     * Ends the input (every producer's final heartbeat) and returns the summaries, in the order the
     * aggregator emits them.
     */
    public List<WindowSummary> finish() {
      if (lastTsMs != Long.MIN_VALUE) {
        stage.endOfInput(lastTsMs, output);
      }
      return summaries;
    }
  }
}
