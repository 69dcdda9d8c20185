package io.tpotstream.sink.record;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The (series, window) pairs an output (a file, the metrics topic) holds that can be offered to it
 * again, in bounded memory: per series the ends of its latest {@value #PER_SERIES} windows.
 * Summaries come again only after a crash (the batch written but not committed, at the output's
 * end) or for a new consumer group (from the earliest, in each series' window order), so a window
 * older than every one kept for its series is already in the output: it is skipped, and counted.
 */
public final class RecentWindows {
  /** Window ends kept per series. */
  public static final int PER_SERIES = 64;

  private static final Logger LOG = LoggerFactory.getLogger(RecentWindows.class);

  private final String output;
  private final Map<String, TreeSet<Long>> bySeries = new HashMap<>();
  private int size;
  private long older;

  /** Remembers the windows of {@code output} (named in the warning about a skipped summary). */
  public RecentWindows(String output) {
    this.output = output;
  }

  /**
   * Remembers {@code key} unless the output holds it already.
   *
   * @return false when {@code key} is kept, or older than every window kept for its series
   */
  public boolean add(WindowKey key) {
    TreeSet<Long> ends = bySeries.computeIfAbsent(key.series(), series -> new TreeSet<>());
    if (isOlder(ends, key)) {
      if (older++ == 0) {
        LOG.warn(
            "{}: a summary of {} for the window ending {} ms is older than the {} latest windows"
                + " it holds for it: taken as written, skipped (write replayed history to"
                + " an output of its own)",
            output,
            key.series(),
            key.windowEndMs(),
            PER_SERIES);
      }
      return false;
    }
    return keep(ends, key);
  }

  /** Remembers {@code key}, read from the output itself (older windows are not counted). */
  public void remember(WindowKey key) {
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
  public int size() {
    return size;
  }

  /** Summaries skipped as older than every window kept for their series. */
  public long older() {
    return older;
  }
}
