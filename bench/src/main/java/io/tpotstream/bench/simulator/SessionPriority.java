package io.tpotstream.bench.simulator;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Linux shares the CPU between sessions first (autogroups), then between the processes of a
 * session; a {@code nice} value only counts inside its session. On a machine shared with other
 * people's sessions, a benchmark that wants to measure its own processes rather than its share of
 * the machine raises its whole session's autogroup to nice -20 while it runs, and puts it back.
 */
final class SessionPriority implements AutoCloseable {
  private static final Path AUTOGROUP = Path.of("/proc/self/autogroup");

  private final String before;
  private final String note;

  private SessionPriority(String before, String note) {
    this.before = before;
    this.note = note;
  }

  /** Raises this session's autogroup to nice -20 where Linux has autogroups and allows it. */
  static SessionPriority raise() {
    if (!Files.isRegularFile(AUTOGROUP)) {
      return new SessionPriority(null, "no autogroups here: processes compete one by one");
    }
    try {
      // "/autogroup-2 nice 0"
      String text = Files.readString(AUTOGROUP).strip();
      String before = text.substring(text.lastIndexOf(' ') + 1);
      Files.writeString(AUTOGROUP, "-20");
      return new SessionPriority(
          before, "this session's autogroup at nice -20 (was " + before + ")");
    } catch (IOException | RuntimeException e) {
      return new SessionPriority(
          null,
          "this session's autogroup stays at its nice value ("
              + e.getMessage()
              + "): other"
              + " sessions' load takes CPU from the client");
    }
  }

  String note() {
    return note;
  }

  @Override
  public void close() {
    if (before != null) {
      try {
        Files.writeString(AUTOGROUP, before);
      } catch (IOException e) {
        System.err.println("could not put this session's autogroup back to nice " + before);
      }
    }
  }
}
