package io.tpotstream.sink.file;

import io.tpotstream.sink.record.WindowKey;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The (series, window) pairs a file holds that can be offered to it again, in bounded memory: per
 * series the ends of its latest {@value #PER_SERIES} windows. Summaries come again only after a
 * crash (the batch written but not committed, at the file's end) or for a new consumer group (from
 * the earliest, in each series' window order), so a window older than every one kept for its series
 * is already in the file: it is skipped, and counted.
 */
final class RecentWindows {
  /** Window ends kept per series. */
  static final int PER_SERIES = 64;

  private static final Logger LOG = LoggerFactory.getLogger(RecentWindows.class);

  private final Path path;
  private final Map<String, TreeSet<Long>> bySeries = new HashMap<>();
  private int size;
  private long older;

  RecentWindows(Path path) {
    this.path = path;
  }

  /**
   * Remembers {@code key} unless the file holds it already.
   *
   * @return false when {@code key} is kept, or older than every window kept for its series
   */
  boolean add(WindowKey key) {
    TreeSet<Long> ends = bySeries.computeIfAbsent(key.series(), series -> new TreeSet<>());
    if (isOlder(ends, key)) {
      if (older++ == 0) {
        LOG.warn(
            "{}: a summary of {} for the window ending {} ms is older than the {} latest windows"
                + " the file holds for it: taken as written, skipped (write replayed history to"
                + " a file of its own)",
            path,
            key.series(),
            key.windowEndMs(),
            PER_SERIES);
      }
      return false;
    }
    return keep(ends, key);
  }

  /** Remembers {@code key}, read from the file itself (older windows are not counted). */
  void remember(WindowKey key) {
    TreeSet<Long> ends = bySeries.computeIfAbsent(key.series(), series -> new TreeSet<>());
    if (!isOlder(ends, key)) {
      keep(ends, key);
    }
  }

  private static boolean isOlder(TreeSet<Long> ends, WindowKey key) {
    return ends.size() == PER_SERIES && key.windowEndMs() < ends.first();
  }

  private boolean keep(TreeSet<Long> ends, WindowKey key) {
    if (!ends.add(key.windowEndMs())) {
      return false;
    }
    if (ends.size() > PER_SERIES) {
      ends.pollFirst();
    } else {
      size++;
    }
    return true;
  }

  /** Window keys kept, over every series. */
  int size() {
    return size;
  }

  /** Summaries skipped as older than every window kept for their series. */
  long older() {
    return older;
  }
}
