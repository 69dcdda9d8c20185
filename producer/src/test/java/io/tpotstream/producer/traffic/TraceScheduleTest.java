package io.tpotstream.producer.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.testkit.LogCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace's intended send times: its offsets over the speed, a window's re-based to its start, pass
 * after pass when looping, and the end of the trace as the end of a bounded replay.
 */
class TraceScheduleTest {
  static final long MS = 1_000_000L;

  @TempDir Path dir;

  private Path trace(long... offsetsMs) throws IOException {
    StringBuilder text = new StringBuilder();
    for (long ms : offsetsMs) {
      text.append("{\"timestamp\": ")
          .append(ms)
          .append(", \"input_length\": 8, \"output_length\": 2}\n");
    }
    Path f = dir.resolve("t.jsonl");
    Files.writeString(f, text);
    return f;
  }

  /** The first {@code count} times of {@code schedule} in ms, -1 past its end; closes it. */
  private static List<Long> times(Schedule schedule, int count) {
    List<Long> ms = new ArrayList<>();
    try (schedule) {
      for (int i = 0; i < count; i++) {
        long ns = schedule.nextNs();
        ms.add(ns < 0 ? -1 : ns / MS);
      }
    }
    return ms;
  }

  @Test
  void requestsStartAtTheTracesOffsetsOverTheSpeedAndABoundedReplayEndsWithIt() throws IOException {
    Path f = trace(0, 100, 250, 400, 900);
    assertEquals(
        List.of(0L, 100L, 250L, 400L, 900L, -1L, -1L),
        times(TraceSchedule.of(f, null, null, null).replay(false), 7));
    assertEquals(
        List.of(0L, 50L, 125L, 200L, 450L, -1L),
        times(TraceSchedule.of(f, "mooncake", 2.0, null).replay(false), 6));
    TraceReplay quarter = TraceSchedule.of(f, null, 4.0, null).replay(false);
    assertEquals(62_500_000L, skip(quarter, 2), "250 ms at 4x, to the ns");
  }

  @Test
  void aWindowIsReplayedFromItsStartAndALoopAgainEachPeriod() throws IOException {
    Path f = trace(0, 100, 250, 400, 900);
    TraceSchedule window = TraceSchedule.of(f, null, null, "100ms-500ms");
    assertEquals(400, window.periodMs());
    assertEquals(3, window.requests());
    assertEquals(List.of(0L, 150L, 300L, -1L), times(window.replay(false), 4));
    assertEquals(List.of(0L, 150L, 300L, 400L, 550L, 700L, 800L), times(window.replay(true), 7));
    TraceReplay numbered = window.replay(true);
    skip(numbered, 3);
    assertEquals(3, numbered.due().n());
    assertEquals(1, numbered.due().pass());
    assertEquals(2, numbered.due().request().line(), "the window's first line again");
    // the whole trace: its last offset plus the mean gap (900 / 4), at least a second
    TraceSchedule whole = TraceSchedule.of(f, null, 2.0, null);
    assertEquals(1125, whole.periodMs());
    assertEquals(List.of(0L, 50L, 125L, 200L, 450L, 562L, 612L), times(whole.replay(true), 7));
    assertEquals(1000, TraceSchedule.of(trace(0, 10), null, null, null).periodMs());
  }

  @Test
  void windowAndSpeedAreReadOrRefusedByName() throws IOException {
    Path f = trace(0, 100, 250);
    assertEquals(
        "config key 'trace_window': cannot read '10m' (write FROM-TO, two durations from the"
            + " trace's start, e.g. 10m-20m)",
        assertThrows(ConfigException.class, () -> TraceSchedule.of(f, null, null, "10m"))
            .getMessage());
    assertEquals(
        "config key 'trace_window': cannot read 'soon' as a duration (write FROM-TO, two durations"
            + " from the trace's start, e.g. 10m-20m)",
        assertThrows(ConfigException.class, () -> TraceSchedule.of(f, null, null, "soon-1m"))
            .getMessage());
    assertEquals(
        "config key 'trace_window': '2m-1m' ends before it starts (write FROM-TO, two durations"
            + " from the trace's start, e.g. 10m-20m)",
        assertThrows(ConfigException.class, () -> TraceSchedule.of(f, null, null, "2m-1m"))
            .getMessage());
    assertEquals(
        "config key 'trace': "
            + f
            + ": no request in the window 1s-2s (its requests are from its"
            + " start to 250ms): check trace_window (--trace-window)",
        assertThrows(ConfigException.class, () -> TraceSchedule.of(f, null, null, "1s-2s"))
            .getMessage());
    for (double speed : new double[] {0, -1, 1001, Double.NaN}) {
      assertEquals(
          "config key 'trace_speed': must be more than 0 and at most 1000, got " + speed,
          assertThrows(ConfigException.class, () -> TraceSchedule.of(f, null, speed, null))
              .getMessage());
    }
    assertEquals(
        "trace " + f + " (JSON lines (Mooncake's or tpot's), 2 requests from 0s to 200ms, at 2.5x)",
        TraceSchedule.of(f, null, 2.5, "0s-200ms").describe());
  }

  @Test
  void aTraceChangedSinceItsCheckEndsTheReplayWithAnError() throws IOException {
    Path f = trace(0, 100, 250);
    TraceSchedule checked = TraceSchedule.of(f, null, null, null);
    Files.writeString(
        f, "{\"timestamp\": 0, \"input_length\": 8, \"output_length\": 2}\n{\"timestamp\": -3}\n");
    try (LogCapture log = LogCapture.begin()) {
      TraceReplay replay = checked.replay(true);
      assertEquals(List.of(0L, -1L, -1L), times(replay, 3));
      assertNull(replay.due());
      assertEquals(
          List.of(
              TraceReplay.class.getName()
                  + " the trace changed since it was checked; its replay ends here: config key"
                  + " 'trace': "
                  + f
                  + " line 2: timestamp -3 is less than 0 (ms from the trace's start, a year at"
                  + " most)"),
          log.lines().stream().filter(l -> l.startsWith(TraceReplay.class.getName())).toList());
    }
  }

  private static long skip(TraceReplay replay, int before) {
    for (int i = 0; i < before; i++) {
      replay.nextNs();
    }
    return replay.nextNs();
  }
}
