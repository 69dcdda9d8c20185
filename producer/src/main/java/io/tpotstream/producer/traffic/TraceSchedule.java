package io.tpotstream.producer.traffic;

import io.tpotstream.common.Durations;
import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.workload.TraceFile;
import io.tpotstream.producer.workload.TraceFormat;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * A trace replayed with its timing: its requests start at their offsets from the trace's start
 * divided by {@code speed} ({@code 2}: twice as fast), from the start of {@code trace_window} when
 * one is given (re-based to 0: {@code 10m-20m} replays the requests from 10 to 20 minutes in, the
 * first 10 minutes in starting the run). A run that goes on forever plays it again and again, each
 * pass {@link #periodMs} after the one before.
 *
 * @param file the checked trace
 * @param speed how much faster than the trace (more than 0, at most {@value #MAX_SPEED})
 * @param windowed whether a {@code trace_window} was given
 */
public record TraceSchedule(TraceFile file, double speed, boolean windowed) {
  /** The fastest replay: a thousand times the trace's pace. */
  public static final double MAX_SPEED = 1000;

  /**
   * The trace {@code path} (checked whole here) with {@code format} ({@code trace_format}, null:
   * told from the file), {@code speed} ({@code trace_speed}, null: 1) and {@code window} ({@code
   * trace_window} as {@code FROM-TO}, null: all of it).
   *
   * @throws ConfigException naming the key, and for the file its line and field
   */
  public static TraceSchedule of(Path path, String format, Double speed, String window) {
    double pace = speed == null ? 1 : speed;
    if (!(pace > 0) || pace > MAX_SPEED) {
      throw new ConfigException(
          "config key 'trace_speed': must be more than 0 and at most "
              + (long) MAX_SPEED
              + ", got "
              + speed);
    }
    long fromMs = 0;
    long toMs = Long.MAX_VALUE;
    if (window != null) {
      long[] w = window(window);
      fromMs = w[0];
      toMs = w[1];
    }
    TraceFile file =
        TraceFile.check(
            "config key 'trace'",
            path,
            format == null ? null : TraceFormat.parse("config key 'trace_format'", format),
            fromMs,
            toMs);
    return new TraceSchedule(file, pace, window != null);
  }

  /** {@code FROM-TO} in ms: two durations, the first below the second. */
  static long[] window(String text) {
    String[] parts = text.trim().split("-", -1);
    String how = " (write FROM-TO, two durations from the trace's start, e.g. 10m-20m)";
    if (parts.length != 2 || parts[0].isBlank() || parts[1].isBlank()) {
      throw new ConfigException("config key 'trace_window': cannot read '" + text + "'" + how);
    }
    long[] ms = new long[2];
    for (int i = 0; i < 2; i++) {
      try {
        ms[i] = Durations.parse("config key 'trace_window'", parts[i]).toMillis();
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "config key 'trace_window': cannot read '" + parts[i].trim() + "' as a duration" + how);
      }
    }
    if (ms[0] >= ms[1]) {
      throw new ConfigException(
          "config key 'trace_window': '" + text + "' ends before it starts" + how);
    }
    return ms;
  }

  /**
   * The length of one pass in the trace's time, ms: the window's, or for the whole trace its last
   * request's offset plus the mean gap between its requests (so that evenly spaced requests stay
   * evenly spaced from one pass to the next), at least a second.
   */
  public long periodMs() {
    TraceFile.Part w = file.window();
    if (windowed) {
      return w.toMs() - w.fromMs();
    }
    long meanGapMs = w.requests() > 1 ? (w.lastMs() - w.firstMs()) / (w.requests() - 1) : 0;
    return Math.max(1000, w.lastMs() + meanGapMs);
  }

  /** A replay from the start; {@code loop}: again and again, else once. */
  public TraceReplay replay(boolean loop) {
    return new TraceReplay(this, loop);
  }

  /** Requests in one pass. */
  public long requests() {
    return file.window().requests();
  }

  /** The trace as one line, for output. */
  public String describe() {
    TraceFile.Part w = file.window();
    return "trace "
        + file.path()
        + " ("
        + file.format().describe()
        + ", "
        + w.requests()
        + " requests"
        + (windowed
            ? " from "
                + Durations.format(Duration.ofMillis(w.fromMs()))
                + " to "
                + Durations.format(Duration.ofMillis(w.toMs()))
            : "")
        + (speed == 1 ? "" : ", at " + String.format(Locale.ROOT, "%s", trim(speed)) + "x")
        + ")";
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
