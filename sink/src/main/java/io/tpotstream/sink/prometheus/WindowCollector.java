package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns the latest window of each series into Prometheus metrics, in seconds: {@code tpot_seconds}
 * and {@code ttft_seconds} as summaries (quantiles 0.5 to 0.9999, {@code _sum} = mean × count),
 * their maxima as gauges, and the window's request counts, error counts by class, error ratio,
 * tokens and end time as gauges (per window, so never counters). Labels: {@code series} and {@code
 * model}. A window without samples shows NaN quantiles and max, count 0.
 */
final class WindowCollector implements MultiCollector {
  private final LatestWindows latest;

  WindowCollector(LatestWindows latest) {
    this.latest = latest;
  }

  @Override
  public MetricSnapshots collect() {
    List<WindowSummary> windows = latest.latest();
    List<MetricSnapshot> metrics = new ArrayList<>();
    latency(metrics, windows, "tpot", "TPOT (time between output tokens)", WindowSummary::tpot);
    latency(metrics, windows, "ttft", "TTFT (time to first token)", WindowSummary::ttft);
    requests(metrics, windows);
    gauge(
        metrics,
        windows,
        "tpot_window_output_tokens",
        "Output tokens in the latest closed window",
        null,
        w -> (double) w.outputTokens());
    gauge(
        metrics,
        windows,
        "tpot_window_tokens_per_second",
        "Output tokens per second in the latest closed window",
        null,
        w -> w.tokensPerSecond() == null ? Double.NaN : w.tokensPerSecond().doubleValue());
    gauge(
        metrics,
        windows,
        "tpot_window_late_samples",
        "Samples dropped as late, counted in the latest closed window",
        null,
        w -> (double) w.lateSamples());
    gauge(
        metrics,
        windows,
        "tpot_window_end_timestamp_seconds",
        "End of the latest closed window, Unix time",
        Unit.SECONDS,
        w -> w.windowEndMs() / 1000.0);
    gauge(
        metrics,
        windows.stream().filter(w -> w.clientPauseMaxMs() != null).toList(),
        "tpot_client_pause_max_seconds",
        "The producers' own longest pause in the latest closed window",
        Unit.SECONDS,
        w -> seconds(w.clientPauseMaxMs()));
    return new MetricSnapshots(metrics);
  }

  private static void latency(
      List<MetricSnapshot> metrics,
      List<WindowSummary> windows,
      String name,
      String what,
      Function<WindowSummary, LatencySummary> stat) {
    if (windows.isEmpty()) {
      return;
    }
    SummarySnapshot.Builder summary =
        SummarySnapshot.builder()
            .name(name + "_seconds")
            .help(what + " in the latest closed window of each series")
            .unit(Unit.SECONDS);
    GaugeSnapshot.Builder max =
        GaugeSnapshot.builder()
            .name(name + "_max_seconds")
            .help("Largest " + what + " in the latest closed window of each series")
            .unit(Unit.SECONDS);
    for (WindowSummary w : windows) {
      LatencySummary s = stat.apply(w) == null ? LatencySummary.EMPTY : stat.apply(w);
      Labels labels = seriesLabels(w);
      summary.dataPoint(
          SummaryDataPointSnapshot.builder()
              .labels(labels)
              .count(s.count())
              .sum(s.count() == 0 ? 0 : seconds(s.meanMs().multiply(BigDecimal.valueOf(s.count()))))
              .quantiles(
                  Quantiles.of(
                      new Quantile(0.5, seconds(s.p50Ms())),
                      new Quantile(0.9, seconds(s.p90Ms())),
                      new Quantile(0.99, seconds(s.p99Ms())),
                      new Quantile(0.999, seconds(s.p999Ms())),
                      new Quantile(0.9999, seconds(s.p9999Ms()))))
              .build());
      max.dataPoint(
          GaugeDataPointSnapshot.builder().labels(labels).value(seconds(s.maxMs())).build());
    }
    metrics.add(summary.build());
    metrics.add(max.build());
  }

  private static void requests(List<MetricSnapshot> metrics, List<WindowSummary> windows) {
    GaugeSnapshot.Builder requests =
        GaugeSnapshot.builder()
            .name("tpot_window_requests")
            .help(
                "Requests in the latest closed window by outcome (started, completed, failed,"
                    + " too_short, abandoned); completed includes too_short");
    GaugeSnapshot.Builder errors =
        GaugeSnapshot.builder()
            .name("tpot_window_errors")
            .help("Failed requests in the latest closed window by error class");
    GaugeSnapshot.Builder ratio =
        GaugeSnapshot.builder()
            .name("tpot_window_error_ratio")
            .help(
                "(failed + abandoned) / (completed + failed + abandoned) in the latest closed"
                    + " window");
    boolean anyError = false;
    for (WindowSummary w : windows) {
      RequestCounts r = w.requests();
      if (r == null) {
        continue;
      }
      Labels labels = seriesLabels(w);
      long[] counts = {r.started(), r.completed(), r.failed(), r.tooShort(), r.abandoned()};
      String[] outcomes = {"started", "completed", "failed", "too_short", "abandoned"};
      for (int i = 0; i < counts.length; i++) {
        requests.dataPoint(
            GaugeDataPointSnapshot.builder()
                .labels(labels.add("outcome", outcomes[i]))
                .value(counts[i])
                .build());
      }
      for (Map.Entry<String, Long> error : r.errors().entrySet()) {
        anyError = true;
        errors.dataPoint(
            GaugeDataPointSnapshot.builder()
                .labels(labels.add("error_class", error.getKey()))
                .value(error.getValue())
                .build());
      }
      ratio.dataPoint(
          GaugeDataPointSnapshot.builder()
              .labels(labels)
              .value(r.errorRate() == null ? Double.NaN : r.errorRate().doubleValue())
              .build());
    }
    if (windows.stream().anyMatch(w -> w.requests() != null)) {
      metrics.add(requests.build());
      metrics.add(ratio.build());
    }
    if (anyError) {
      metrics.add(errors.build());
    }
  }

  private static void gauge(
      List<MetricSnapshot> metrics,
      List<WindowSummary> windows,
      String name,
      String help,
      Unit unit,
      Function<WindowSummary, Double> value) {
    if (windows.isEmpty()) {
      return;
    }
    GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(name).help(help);
    if (unit != null) {
      gauge.unit(unit);
    }
    for (WindowSummary w : windows) {
      gauge.dataPoint(
          GaugeDataPointSnapshot.builder().labels(seriesLabels(w)).value(value.apply(w)).build());
    }
    metrics.add(gauge.build());
  }

  private static Labels seriesLabels(WindowSummary w) {
    return Labels.of("series", w.series(), "model", w.model());
  }

  /** ms (three decimals) to seconds, NaN when absent. */
  private static double seconds(BigDecimal ms) {
    return ms == null ? Double.NaN : ms.movePointLeft(3).doubleValue();
  }
}
