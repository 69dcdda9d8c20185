package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.snapshots.Labels;
import io.tpotstream.common.summary.WindowSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code /metrics} shows, per series: the latest closed window, and counters and histograms
 * added up over the windows this sink has read since it started (cumulative, as Prometheus wants:
 * they only grow, and a restart of the sink is a counter reset its {@code _created} timestamps
 * show). Bounded: at most {@code maxSeries} series; the windows of any other series, and of a
 * series whose labels come out the same as another's, are dropped and counted. A series without a
 * new window for {@code seriesTtl} (a finished run) leaves the view, making room for live ones; if
 * it comes back it starts anew (its {@code _created} says so). Thread-safe: the sink writes, the
 * HTTP server reads.
 */
public final class PrometheusView {
  /** Series shown when not told otherwise. */
  public static final int DEFAULT_MAX_SERIES = 2_000;

  /** How long a series without a new window stays when not told otherwise. */
  public static final Duration DEFAULT_SERIES_TTL = Duration.ofHours(1);

  private static final Logger LOG = LoggerFactory.getLogger(PrometheusView.class);

  private final int maxSeries;
  private final long seriesTtlMs;
  private final LongSupplier clockMs;
  private final Map<String, SeriesMetrics> bySeries = new TreeMap<>();
  private final Map<String, Long> lastWindowAtMs = new HashMap<>();
  private final Set<Labels> labelSets = new HashSet<>();
  private final Set<String> refused = new HashSet<>();
  private final PrometheusLabels labels = new PrometheusLabels();
  private final long[] dropped = new long[Dropped.values().length];

  /** Why the windows of a series are not on {@code /metrics}. */
  enum Dropped {
    SERIES_LIMIT,
    LABEL_COLLISION;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public PrometheusView() {
    this(DEFAULT_MAX_SERIES);
  }

  /** A view of at most {@code maxSeries} series, each kept while the sink runs. */
  public PrometheusView(int maxSeries) {
    this(maxSeries, Duration.ZERO, System::currentTimeMillis);
  }

  /**
   * A view of at most {@code maxSeries} series, each kept until it had no new window for {@code
   * seriesTtl} ({@link Duration#ZERO}: while the sink runs), by {@code clockMs} (epoch ms).
   */
  public PrometheusView(int maxSeries, Duration seriesTtl, LongSupplier clockMs) {
    if (maxSeries <= 0) {
      throw new IllegalArgumentException("the series limit must be positive: " + maxSeries);
    }
    this.maxSeries = maxSeries;
    this.seriesTtlMs = seriesTtl.toMillis();
    this.clockMs = clockMs;
  }

  /** A summary read from Kafka: shown as its series' latest window and added to its counters. */
  public synchronized void add(WindowSummary summary) {
    expire();
    SeriesMetrics series = series(summary, true);
    if (series == null) {
      return;
    }
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
    expire();
    SeriesMetrics series = series(summary, false);
    if (series != null) {
      series.keepLatest(summary);
    }
  }

  /** Reads the series, sorted by series, under this view's lock. */
  synchronized <T> T read(Function<List<SeriesMetrics>, T> reader) {
    expire();
    return reader.apply(new ArrayList<>(bySeries.values()));
  }

  /** Series on the view. */
  public synchronized int seriesShown() {
    expire();
    return bySeries.size();
  }

  /** Removes the series without a new window for the time to live (saying so, once each). */
  private void expire() {
    if (seriesTtlMs <= 0 || lastWindowAtMs.isEmpty()) {
      return;
    }
    long before = clockMs.getAsLong() - seriesTtlMs;
    Iterator<Map.Entry<String, Long>> it = lastWindowAtMs.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<String, Long> e = it.next();
      if (e.getValue() < before) {
        it.remove();
        SeriesMetrics gone = bySeries.remove(e.getKey());
        labelSets.remove(gone.labels);
        LOG.info(
            "{} left /metrics: no new window for {} (--prometheus-series-ttl); a new window"
                + " brings it back, its counters from 0",
            e.getKey(),
            Duration.ofMillis(seriesTtlMs));
      }
    }
  }

  /** Windows dropped for {@code reason} since the sink started. */
  synchronized long dropped(Dropped reason) {
    return dropped[reason.ordinal()];
  }

  /** The series of {@code summary}, null when it is not shown ({@code count}: count the drop). */
  private SeriesMetrics series(WindowSummary summary, boolean count) {
    SeriesMetrics known = bySeries.get(summary.series());
    if (known != null) {
      lastWindowAtMs.put(summary.series(), clockMs.getAsLong());
      return known;
    }
    Dropped reason = null;
    Labels seriesLabels = null;
    if (bySeries.size() >= maxSeries) {
      reason = Dropped.SERIES_LIMIT;
    } else {
      seriesLabels = labels.of(summary.model(), summary.labels());
      if (labelSets.contains(seriesLabels)) {
        reason = Dropped.LABEL_COLLISION;
      }
    }
    if (reason != null) {
      if (count) {
        dropped[reason.ordinal()]++;
      }
      if (refused.size() < maxSeries && refused.add(summary.series())) {
        LOG.warn(
            "{} is not on /metrics ({}; limit {} series): its windows are counted in"
                + " tpot_dropped_windows_total",
            summary.series(),
            reason.label(),
            maxSeries);
      }
      return null;
    }
    labelSets.add(seriesLabels);
    SeriesMetrics series = new SeriesMetrics(seriesLabels, clockMs.getAsLong());
    bySeries.put(summary.series(), series);
    lastWindowAtMs.put(summary.series(), clockMs.getAsLong());
    return series;
  }
}
