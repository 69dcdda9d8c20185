package io.tpotstream.sink.prometheus;

import io.tpotstream.common.summary.WindowSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;

/** The latest closed window of each series, as {@code /metrics} shows it. Thread-safe. */
public final class LatestWindows {
  private final ConcurrentSkipListMap<String, WindowSummary> bySeries =
      new ConcurrentSkipListMap<>();

  /** Keeps {@code summary} when it is its series' latest window so far. */
  public void update(WindowSummary summary) {
    bySeries.merge(
        summary.series(),
        summary,
        (current, candidate) ->
            candidate.windowEndMs() >= current.windowEndMs() ? candidate : current);
  }

  /** The latest window of every series, sorted by series. */
  public List<WindowSummary> latest() {
    return new ArrayList<>(bySeries.values());
  }
}
