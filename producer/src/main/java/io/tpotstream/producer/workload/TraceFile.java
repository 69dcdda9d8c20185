package io.tpotstream.producer.workload;

import io.tpotstream.common.Durations;
import io.tpotstream.producer.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A trace file read from end to end before its replay, so that a value it cannot use stops the run
 * before any request, naming the line: every line through its format's reader ({@link
 * TraceFormat}), the turns of each session in order ({@link TraceSessions#check}). The replay reads
 * it again as it goes ({@link #open}), holding one line at a time, whatever the file's size.
 *
 * @param where names it in messages: {@code config key 'trace': FILE}
 * @param requests the requests in the whole file
 * @param lastMs the last request's offset from the trace's start, in ms
 * @param blockSize the tokens of a block its hash ids stand for
 * @param window what the part of it that is replayed holds
 * @param mostLabels the most labels one of its lines carries
 */
public record TraceFile(
    Path path,
    String where,
    TraceFormat format,
    long requests,
    long lastMs,
    int blockSize,
    Part window,
    int mostLabels) {

  /**
   * The requests of a part of the trace: those from {@code fromMs} (included) to {@code toMs}
   * (excluded).
   *
   * @param requests how many
   * @param firstMs the first one's offset from the trace's start, in ms (-1 when none)
   * @param lastMs the last one's
   * @param outputTokens their output lengths added up
   */
  public record Part(
      long fromMs, long toMs, long requests, long firstMs, long lastMs, long outputTokens) {}

  /**
   * Reads {@code file} whole, in {@code format} (null: told from its first line), counting what
   * lies from {@code fromMs} to {@code toMs} (ms from the trace's start).
   *
   * @param key the config key that named it, for messages
   * @throws ConfigException naming the file, the line and the field of a value it cannot use, or a
   *     window that holds no request
   */
  public static TraceFile check(String key, Path file, TraceFormat format, long fromMs, long toMs) {
    String where = key + ": " + file;
    TraceFormat f = format != null ? format : TraceFormat.detect(file, where);
    long requests = 0;
    long lastMs = 0;
    int blockSize = TraceBounds.DEFAULT_BLOCK_SIZE;
    long inWindow = 0;
    long firstInWindow = -1;
    long lastInWindow = -1;
    long outputTokens = 0;
    int mostLabels = 0;
    TraceSessions sessions = new TraceSessions(TraceBounds.DEFAULT_BLOCK_SIZE);
    try (TraceReader reader = f.open(file, where)) {
      TraceRequest r;
      while ((r = reader.next()) != null) {
        sessions.check(r, where);
        requests++;
        lastMs = r.offsetMs();
        blockSize = r.blockSize();
        mostLabels = Math.max(mostLabels, r.labels().size());
        if (r.offsetMs() >= fromMs && r.offsetMs() < toMs) {
          inWindow++;
          firstInWindow = firstInWindow < 0 ? r.offsetMs() : firstInWindow;
          lastInWindow = r.offsetMs();
          outputTokens += r.outputTokens();
        }
      }
    }
    if (requests == 0) {
      throw new ConfigException(where + " holds no request: a trace has one request a line");
    }
    if (inWindow == 0) {
      throw new ConfigException(
          where
              + ": no request in the window "
              + ms(fromMs)
              + "-"
              + ms(toMs)
              + " (its requests are from its start to "
              + ms(lastMs)
              + "): check trace_window (--trace-window)");
    }
    return new TraceFile(
        file,
        where,
        f,
        requests,
        lastMs,
        blockSize,
        new Part(fromMs, toMs, inWindow, firstInWindow, lastInWindow, outputTokens),
        mostLabels);
  }

  private static String ms(long ms) {
    return Durations.format(Duration.ofMillis(ms));
  }

  /** A reader from the file's start (the replay's; its values were checked). */
  public TraceReader open() {
    return format.open(path, where);
  }
}
