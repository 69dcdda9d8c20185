package io.tpotstream.sink.file;

import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.record.WindowKey;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The summaries as JSON lines, histograms included, so that a report can merge windows exactly. The
 * same crash rules as {@link CsvFile}: a torn last line is cut, and a (series, window) already in
 * the file is never written again.
 */
public final class JsonlFile implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(JsonlFile.class);

  private final LineLog log;
  private final Set<WindowKey> keys = new HashSet<>();

  private JsonlFile(Path path, Consumer<WindowSummary> existing) {
    this.log = LineLog.open(path, decoding(path, keys, existing));
  }

  /**
   * Opens or creates the file at {@code path}, handing every summary already in it to {@code
   * existing} (each (series, window) once, in file order).
   */
  public static JsonlFile open(Path path, Consumer<WindowSummary> existing) {
    return new JsonlFile(path, existing);
  }

  /**
   * Reads every summary of a JSONL file written by the sink (each (series, window) once), without
   * changing the file: it may be read while a sink appends to it.
   */
  public static void read(Path path, Consumer<WindowSummary> summaries) {
    LineLog.readComplete(path, decoding(path, new HashSet<>(), summaries));
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

  private static Consumer<String> decoding(
      Path path, Set<WindowKey> seen, Consumer<WindowSummary> summaries) {
    long[] lineNumber = {0};
    return line -> {
      lineNumber[0]++;
      try {
        WindowSummary summary = WindowSummaryCodec.decode(line);
        if (seen.add(key(summary))) {
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
