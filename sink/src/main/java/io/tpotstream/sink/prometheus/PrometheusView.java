package io.tpotstream.sink.prometheus;

import io.tpotstream.common.summary.WindowSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code /metrics} shows, per series: the latest closed window, and counters and histograms
 * added up over the windows this sink has read since it started (cumulative, as Prometheus wants:
 * they only grow, and a restart of the sink is an ordinary counter reset). Thread-safe: the sink
 * writes, the HTTP server reads.
 */
public final class PrometheusView {
  private static final Logger LOG = LoggerFactory.getLogger(PrometheusView.class);

  private final Map<String, SeriesMetrics> bySeries = new TreeMap<>();

  /** A summary read from Kafka: shown as its series' latest window and added to its counters. */
  public synchronized void add(WindowSummary summary) {
    SeriesMetrics series = series(summary);
    series.keepLatest(summary);
    try {
      if (!series.count(summary)) {
        LOG.debug("{} {} was already counted", summary.series(), summary.windowEnd());
      }
    } catch (IllegalArgumentException e) {
      LOG.warn(
          "{} {} not counted on /metrics: {}",
          summary.series(),
          summary.windowEnd(),
          e.getMessage());
    }
  }

  /**
   * A summary the sink wrote before it restarted (from its files): shown as its series' latest
   * window, never counted again.
   */
  public synchronized void restore(WindowSummary summary) {
    series(summary).keepLatest(summary);
  }

  /** Reads the series, sorted by series, under this view's lock. */
  synchronized <T> T read(Function<List<SeriesMetrics>, T> reader) {
    return reader.apply(new ArrayList<>(bySeries.values()));
  }

  private SeriesMetrics series(WindowSummary summary) {
    return bySeries.computeIfAbsent(summary.series(), name -> new SeriesMetrics(summary));
  }
}
