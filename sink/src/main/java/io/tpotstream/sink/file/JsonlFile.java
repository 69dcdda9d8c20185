package io.tpotstream.sink.file;

import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.record.RecentWindows;
import io.tpotstream.sink.record.WindowKey;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The summaries as JSON lines, histograms included, so that a report can merge windows exactly. The
 * same rules as {@link CsvFile}: one writer, a torn last line is cut, a (series, window) already in
 * the file is never written again, and only the file's last lines are read on open.
 */
public final class JsonlFile implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(JsonlFile.class);

  /** Lines read back on open: the uncommitted tail is at most one batch. */
  public static final long DEFAULT_TAIL_LINES = 1_000;

  private final LineLog log;
  private final RecentWindows keys;
  private boolean empty = true;

  private JsonlFile(Path path, long tailLines, Consumer<WindowSummary> existing) {
    this.keys = new RecentWindows(path.toString());
    Consumer<String> lines = decoding(path, this::remember, existing);
    this.log = LineLog.open(path, tailLines, null, lines);
  }

  /**
   * Opens or creates the file at {@code path}, handing the summaries of its last lines to {@code
   * existing} (each (series, window) once, in file order).
   */
  public static JsonlFile open(Path path, Consumer<WindowSummary> existing) {
    return open(path, DEFAULT_TAIL_LINES, existing);
  }

  /**
   * As {@link #open(Path, Consumer)}, with the last {@code tailLines} lines.
   *
   * @throws FileInUseException when another writer holds the file
   */
  public static JsonlFile open(Path path, long tailLines, Consumer<WindowSummary> existing) {
    return new JsonlFile(path, tailLines, existing);
  }

  /**
   * Reads every line of the file once to learn each series' latest windows (memory stays bounded;
   * time grows with the file): for a reader that offers every summary again from the earliest.
   */
  public void scanHistory() {
    LineLog.readComplete(log.path(), decoding(log.path(), this::remember, summary -> {}));
  }

  /** (series, window) pairs remembered, over every series: bounded, whatever the file's length. */
  public int keptWindows() {
    return keys.size();
  }

  /** Whether the file holds a summary (found on open or appended). */
  public boolean hasSummaries() {
    return !empty;
  }

  /**
   * Reads every summary of a JSONL file written by the sink (each (series, window) once), without
   * changing the file: it may be read while a sink appends to it.
   */
  public static void read(Path path, Consumer<WindowSummary> summaries) {
    Set<WindowKey> seen = new HashSet<>();
    LineLog.readComplete(path, decoding(path, seen::add, summaries));
  }

  /**
   * Buffers {@code summary} unless its (series, window) is already in the file.
   *
   * @return false when it was already there
   */
  public boolean append(WindowSummary summary) {
    if (!keys.add(key(summary))) {
      return false;
    }
    log.append(WindowSummaryCodec.encodeToString(summary));
    empty = false;
    return true;
  }

  /** Writes the buffered lines and forces them to the disk. */
  public void sync() {
    log.sync();
  }

  public Path path() {
    return log.path();
  }

  @Override
  public void close() {
    log.close();
  }

  private boolean remember(WindowKey key) {
    empty = false;
    keys.remember(key);
    return true;
  }

  /** Decodes each line; hands on the summaries {@code seen} takes as new. */
  private static Consumer<String> decoding(
      Path path, Predicate<WindowKey> seen, Consumer<WindowSummary> summaries) {
    long[] lineNumber = {0};
    return line -> {
      lineNumber[0]++;
      try {
        WindowSummary summary = WindowSummaryCodec.decode(line);
        if (seen.test(key(summary))) {
          summaries.accept(summary);
        }
      } catch (IllegalArgumentException e) {
        LOG.warn("{} line {} skipped: {}", path, lineNumber[0], e.getMessage());
      }
    };
  }

  private static WindowKey key(WindowSummary summary) {
    return new WindowKey(summary.series(), summary.windowEndMs());
  }
}
