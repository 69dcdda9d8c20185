package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.slo.ObjectiveResult;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * {@code /metrics}, in seconds, every name in the {@code tpot_} namespace, labelled {@code model}
 * plus one label per grouped label ({@link PrometheusLabels}):
 *
 * <ul>
 *   <li>cumulative histograms of TPOT, TTFT, request TPOT and E2E ({@link LatencyMetric}), classic
 *       buckets in text, native buckets too when the scraper asks for protobuf;
 *   <li>cumulative counters: requests by outcome, errors by class (every known class from 0),
 *       output tokens, late samples, coalesced gaps, warm-up requests, windows and client-suspect
 *       windows, the prompt tokens of the requests that reported the server's prefix cache and the
 *       cached ones among them;
 *   <li>gauges of the latest closed window: the exact HdrHistogram percentiles (50 to 99.99) and
 *       max of each latency, error ratio, tokens per second, the prefix cache's hit ratio, the
 *       producers' own worst pause and event-loop lag, whether the window is client-suspect, and
 *       its end time;
 *   <li>the SLO: windows judged and missed, good requests (counters, 0 without an SLO), the latest
 *       window's verdict and goodput (NaN without), and once summaries carry objectives each one's
 *       verdict, value, limit and whether it had no data (gauges);
 *   <li>the inference engine: scrapes and failed scrapes (counters), and once summaries carry an
 *       engine section the latest window's engine percentiles and time added outside the engine as
 *       interval ends, its queue, KV cache and prefix cache (gauges).
 * </ul>
 *
 * A value the window does not have (no sample, not reported by the producers) is NaN.
 */
final class TpotCollector implements MultiCollector {
  static final List<String> PERCENTILES = List.of("50", "90", "99", "99.9", "99.99");

  /** The percentiles of the engine's families. */
  static final List<String> ENGINE_PERCENTILES = List.of("50", "99", "99.9");

  private final PrometheusView view;

  /** When this collector started, epoch ms: the {@code _created} of the counters of the sink. */
  private final long createdMs = System.currentTimeMillis();

  TpotCollector(PrometheusView view) {
    this.view = view;
  }

  @Override
  public MetricSnapshots collect() {
    return view.read(all -> all.isEmpty() ? new MetricSnapshots() : new Families(all).build());
  }

  /** The families of one scrape, each with a data point per series of {@code all}. */
  private final class Families {
    private final List<SeriesMetrics> all;
    private final List<MetricSnapshot> metrics = new ArrayList<>();

    Families(List<SeriesMetrics> all) {
      this.all = all;
    }

    private MetricSnapshots build() {
      for (int i = 0; i < LatencyMetric.ALL.size(); i++) {
        LatencyMetric latency = LatencyMetric.ALL.get(i);
        HistogramSnapshot.Builder histogram =
            HistogramSnapshot.builder()
                .name(latency.histogramName())
                .help(latency.what() + ", every window since the sink started")
                .unit(Unit.SECONDS);
        for (SeriesMetrics s : all) {
          histogram.dataPoint(s.histograms[i].snapshot(s.labels, s.createdMs));
        }
        metrics.add(histogram.build());
      }
      requests();
      counter("tpot_output_tokens", "Output tokens", s -> s.outputTokens);
      counter(
          "tpot_late_samples",
          "Samples dropped as late (a stale producer's, or for a window already closed)",
          s -> s.lateSamples);
      counter(
          "tpot_coalesced_gaps",
          "TPOT samples whose chunk arrived in the same socket read as the chunk before",
          s -> s.coalescedGaps);
      counter(
          "tpot_client_touched_gaps",
          "TPOT samples whose gap a producer's own event loop ran more than 1 ms late in",
          s -> s.clientTouchedGaps);
      counter(
          "tpot_warmup_requests",
          "Warm-up requests, left out of every statistic",
          s -> s.warmupRequests);
      counter(
          "tpot_prompt_cache_prompt_tokens",
          "Prompt tokens of the completed requests that reported the server's prefix cache",
          s -> s.cachePromptTokens);
      counter(
          "tpot_prompt_cache_cached_tokens",
          "Of those, the prompt tokens the server read from its prefix cache",
          s -> s.cachedTokens);
      counter("tpot_windows", "Closed windows read by the sink", s -> s.windows);
      counter(
          "tpot_client_suspect_windows",
          "Closed windows in which the producers' own lag could have raised a reported TPOT"
              + " percentile by more than the threshold",
          s -> s.suspectWindows);

      for (LatencyMetric latency : LatencyMetric.ALL) {
        windowLatency(latency);
      }
      gauge(
          "tpot_window_error_ratio",
          "(failed + abandoned) / (completed + failed + abandoned) in the latest closed window",
          null,
          w -> w.requests() == null ? Double.NaN : number(w.requests().errorRate()));
      gauge(
          "tpot_window_tokens_per_second",
          "Output tokens per second in the latest closed window",
          null,
          w -> number(w.tokensPerSecond()));
      gauge(
          "tpot_window_prompt_cache_hit_ratio",
          "Cached prompt tokens / prompt tokens of the completed requests that reported the"
              + " server's prefix cache in the latest closed window (NaN when none reported it)",
          null,
          w -> w.promptCache() == null ? Double.NaN : number(w.promptCache().hitRate()));
      gauge(
          "tpot_window_client_pause_max_seconds",
          "The producers' own longest pause (GC, scheduling) in the latest closed window",
          Unit.SECONDS,
          w -> seconds(w.clientPauseMaxMs()));
      gauge(
          "tpot_window_client_lag_max_seconds",
          "The producers' worst event-loop lag in the latest closed window",
          Unit.SECONDS,
          w -> seconds(w.clientLagMaxMs()));
      gauge(
          "tpot_window_client_suspect",
          "1 when the producers' own lag could have raised a reported TPOT percentile by more than"
              + " the threshold in the latest closed window, 0 when not, NaN when they did not"
              + " report it",
          null,
          w -> w.clientSuspect() == null ? Double.NaN : w.clientSuspect() ? 1 : 0);
      gauge(
          "tpot_window_client_touched_tail_ratio",
          "The share of the TPOT samples at or above p99 whose gap the producers' own lag touched,"
              + " in the latest closed window",
          null,
          w ->
              w.clientTouched() == null || w.clientTouched().tailShare() == null
                  ? Double.NaN
                  : number(w.clientTouched().tailShare()));
      slo();
      engine();
      limits();
      gauge(
          "tpot_window_end_timestamp_seconds",
          "End of the latest closed window, Unix time",
          Unit.SECONDS,
          w -> w.windowEndMs() / 1000.0);
      return new MetricSnapshots(metrics);
    }

    /**
     * The SLO: windows judged and missed, good requests (0 without an SLO), and for the latest
     * window its verdict and goodput (NaN without) and, when it has objectives, each one's verdict,
     * value and limit (in the objective's base unit: seconds for a latency, a ratio for {@code
     * error_rate} and {@code goodput}) and whether it had no data (then its value is NaN and its
     * verdict 0).
     */
    private void slo() {
      counter(
          "tpot_slo_windows",
          "Closed windows judged against the aggregator's --slo",
          s -> s.sloWindows);
      counter(
          "tpot_slo_missed_windows",
          "Closed windows that missed at least one --slo objective",
          s -> s.sloMissedWindows);
      counter(
          "tpot_good_requests",
          "Finished requests that met every --goodput limit",
          s -> s.goodRequests);
      gauge(
          "tpot_window_slo_met",
          "1 when the latest closed window met every --slo objective, 0 when not, NaN without an SLO",
          null,
          w -> w.slo() == null ? Double.NaN : w.slo().met() ? 1 : 0);
      gauge(
          "tpot_window_goodput_ratio",
          "Share of the latest closed window's finished requests that met every --goodput limit",
          null,
          w -> w.slo() == null ? Double.NaN : number(w.slo().goodput()));
      if (all.stream().noneMatch(s -> s.latest.slo() != null)) {
        return;
      }
      GaugeSnapshot.Builder met =
          GaugeSnapshot.builder()
              .name("tpot_window_slo_objective_met")
              .help(
                  "1 when the latest closed window met this objective, 0 when not (also when it had"
                      + " no data)");
      GaugeSnapshot.Builder value =
          GaugeSnapshot.builder()
              .name("tpot_window_slo_objective_value")
              .help(
                  "The objective's value in the latest closed window: seconds for a latency, a ratio"
                      + " for error_rate and goodput (NaN when there was nothing to measure)");
      GaugeSnapshot.Builder limit =
          GaugeSnapshot.builder()
              .name("tpot_window_slo_objective_limit")
              .help("The objective's limit, in the unit of tpot_window_slo_objective_value");
      GaugeSnapshot.Builder noData =
          GaugeSnapshot.builder()
              .name("tpot_window_slo_objective_no_data")
              .help(
                  "1 when the latest closed window had nothing to measure for this objective (no"
                      + " sample; no finished request, for error_rate and goodput), which is not"
                      + " met; 0 when it had");
      for (SeriesMetrics s : all) {
        if (s.latest.slo() == null) {
          continue;
        }
        for (ObjectiveResult o : s.latest.slo().objectives()) {
          Labels labels = s.labels.add("objective", o.name());
          boolean latency = !o.name().equals("error_rate") && !o.name().equals("goodput");
          met.dataPoint(point(labels, o.met() ? 1 : 0));
          value.dataPoint(point(labels, latency ? seconds(o.measured()) : number(o.measured())));
          limit.dataPoint(point(labels, latency ? seconds(o.limit()) : number(o.limit())));
          noData.dataPoint(point(labels, o.hasNoData() ? 1 : 0));
        }
      }
      metrics.add(met.build());
      metrics.add(value.build());
      metrics.add(limit.build());
      metrics.add(noData.build());
    }

    /**
     * The inference engine's own view ({@link EngineView}): scrapes and failed scrapes (counters,
     * from 0 for every series), and for a series whose latest window has an engine section its
     * TPOT, TTFT and E2E percentiles as the ends of the engine bucket each fell in, the time added
     * outside the engine (the client's percentile minus that interval: a bound, not a value),
     * running and waiting requests, KV-cache usage and the prefix-cache hit ratio. An end that does
     * not exist (the {@code +Inf} bucket has no upper end) or a value the engine did not publish
     * has no sample; the gauge families appear once a window has an engine section.
     */
    private void engine() {
      counter(
          "tpot_engine_scrapes",
          "Successful scrapes of the inference engine's metrics (--engine-metrics)",
          s -> s.engineScrapes);
      counter(
          "tpot_engine_failed_scrapes",
          "Scrapes of the inference engine's metrics that failed",
          s -> s.engineFailedScrapes);
      if (all.stream().noneMatch(s -> s.latest.engine() != null)) {
        return;
      }
      GaugeSnapshot.Builder latency =
          GaugeSnapshot.builder()
              .name("tpot_window_engine_latency_seconds")
              .help(
                  "The engine's own TPOT, TTFT or E2E (stat) in the latest closed window: the lower"
                      + " (bound=lo) and upper (bound=hi) end of the engine histogram's bucket that"
                      + " holds the percentile (no hi for the +Inf bucket)")
              .unit(Unit.SECONDS);
      GaugeSnapshot.Builder outside =
          GaugeSnapshot.builder()
              .name("tpot_window_outside_engine_seconds")
              .help(
                  "Time added outside the engine in the latest closed window: the client's TPOT or"
                      + " TTFT percentile minus the engine's interval, lo and hi bounds (no lo when"
                      + " the engine's interval is unbounded)")
              .unit(Unit.SECONDS);
      GaugeSnapshot.Builder requests =
          GaugeSnapshot.builder()
              .name("tpot_window_engine_requests")
              .help(
                  "Requests running or waiting in the engine (state), the largest (agg=max) and"
                      + " mean (agg=mean) value at the latest closed window's scrapes");
      GaugeSnapshot.Builder kvCache =
          GaugeSnapshot.builder()
              .name("tpot_window_engine_kv_cache_usage_ratio")
              .help(
                  "The engine's KV-cache usage (0 to 1), the largest (agg=max) and mean (agg=mean)"
                      + " value at the latest closed window's scrapes");
      GaugeSnapshot.Builder prefix =
          GaugeSnapshot.builder()
              .name("tpot_window_engine_prefix_cache_hit_ratio")
              .help(
                  "The engine's prefix-cache hits / queries (tokens) over the latest closed"
                      + " window's scrapes");
      for (SeriesMetrics s : all) {
        EngineView e = s.latest.engine();
        if (e == null) {
          continue;
        }
        Labels labels = s.labels;
        intervals(
            latency, labels.add("stat", "tpot"), e.tpot() == null ? null : e.tpot().p50p99p999());
        intervals(
            latency, labels.add("stat", "ttft"), e.ttft() == null ? null : e.ttft().p50p99p999());
        intervals(
            latency, labels.add("stat", "e2e"), e.e2e() == null ? null : e.e2e().p50p99p999());
        EngineView.Outside o = e.outside();
        intervals(
            outside,
            labels.add("stat", "tpot"),
            o == null || o.tpot() == null ? null : o.tpot().p50p99p999());
        intervals(
            outside,
            labels.add("stat", "ttft"),
            o == null || o.ttft() == null ? null : o.ttft().p50p99p999());
        gauge(requests, labels.add("state", "running"), e.running());
        gauge(requests, labels.add("state", "waiting"), e.waiting());
        gauge(kvCache, labels, e.kvCacheUsage());
        if (e.prefixCacheHitRate() != null) {
          prefix.dataPoint(point(labels, number(e.prefixCacheHitRate())));
        }
      }
      metrics.add(latency.build());
      metrics.add(outside.build());
      metrics.add(requests.build());
      metrics.add(kvCache.build());
      metrics.add(prefix.build());
    }

    /** A point per existing end of the p50, p99 and p99.9 intervals (null: none), in seconds. */
    private void intervals(
        GaugeSnapshot.Builder family, Labels labels, List<EngineView.Interval> intervals) {
      if (intervals == null) {
        return;
      }
      for (int i = 0; i < ENGINE_PERCENTILES.size(); i++) {
        EngineView.Interval interval = intervals.get(i);
        if (interval == null) {
          continue;
        }
        Labels at = labels.add("percentile", ENGINE_PERCENTILES.get(i));
        if (interval.loMs() != null) {
          family.dataPoint(point(at.add("bound", "lo"), seconds(interval.loMs())));
        }
        if (interval.hiMs() != null) {
          family.dataPoint(point(at.add("bound", "hi"), seconds(interval.hiMs())));
        }
      }
    }

    private void gauge(GaugeSnapshot.Builder family, Labels labels, EngineView.Gauge gauge) {
      if (gauge != null) {
        family.dataPoint(point(labels.add("agg", "max"), number(gauge.max())));
        family.dataPoint(point(labels.add("agg", "mean"), number(gauge.mean())));
      }
    }

    /** What the bounds of {@code /metrics} left out: whole series, and error classes folded. */
    private void limits() {
      CounterSnapshot.Builder dropped =
          CounterSnapshot.builder()
              .name("tpot_dropped_windows")
              .help(
                  "Windows of series not on /metrics since the sink started: series_limit (past"
                      + " the series limit) or label_collision (labels the same as another"
                      + " series')");
      for (PrometheusView.Dropped reason : PrometheusView.Dropped.values()) {
        dropped.dataPoint(
            count(Labels.of("reason", reason.label()), view.dropped(reason), createdMs));
      }
      metrics.add(dropped.build());
      counter(
          "tpot_folded_errors",
          "Failed requests counted under error_class=\"other\" because the series already shows "
              + SeriesMetrics.MAX_EXTRA_ERROR_CLASSES
              + " error classes beyond the known ones",
          s -> s.foldedErrors);
    }

    private void requests() {
      CounterSnapshot.Builder requests =
          CounterSnapshot.builder()
              .name("tpot_requests")
              .help(
                  "Requests by outcome (started, completed, failed, too_short, abandoned);"
                      + " completed includes too_short");
      CounterSnapshot.Builder errors =
          CounterSnapshot.builder()
              .name("tpot_errors")
              .help("Failed requests by error class (every known class is shown from 0)");
      for (SeriesMetrics s : all) {
        for (int i = 0; i < SeriesMetrics.OUTCOMES.size(); i++) {
          requests.dataPoint(
              count(
                  s.labels.add("outcome", SeriesMetrics.OUTCOMES.get(i)),
                  s.requests[i],
                  s.createdMs));
        }
        s.errors.forEach(
            (errorClass, failed) ->
                errors.dataPoint(
                    count(s.labels.add("error_class", errorClass), failed, s.createdMs)));
      }
      metrics.add(requests.build());
      metrics.add(errors.build());
    }

    private void counter(String name, String help, ToDoubleFunction<SeriesMetrics> value) {
      CounterSnapshot.Builder counter =
          CounterSnapshot.builder().name(name).help(help + ", every window since the sink started");
      for (SeriesMetrics s : all) {
        counter.dataPoint(count(s.labels, value.applyAsDouble(s), s.createdMs));
      }
      metrics.add(counter.build());
    }

    private void windowLatency(LatencyMetric latency) {
      GaugeSnapshot.Builder percentiles =
          GaugeSnapshot.builder()
              .name(latency.windowName())
              .help(
                  latency.what()
                      + " in the latest closed window: HdrHistogram's value at each percentile")
              .unit(Unit.SECONDS);
      GaugeSnapshot.Builder max =
          GaugeSnapshot.builder()
              .name(latency.windowMaxName())
              .help("Largest " + latency.what() + " in the latest closed window")
              .unit(Unit.SECONDS);
      for (SeriesMetrics s : all) {
        LatencySummary w = latency.summary().apply(s.latest);
        LatencySummary stat = w == null ? LatencySummary.EMPTY : w;
        BigDecimal[] values = {
          stat.p50Ms(), stat.p90Ms(), stat.p99Ms(), stat.p999Ms(), stat.p9999Ms()
        };
        for (int i = 0; i < values.length; i++) {
          percentiles.dataPoint(
              point(s.labels.add("percentile", PERCENTILES.get(i)), seconds(values[i])));
        }
        max.dataPoint(point(s.labels, seconds(stat.maxMs())));
      }
      metrics.add(percentiles.build());
      metrics.add(max.build());
    }

    private void gauge(String name, String help, Unit unit, Function<WindowSummary, Double> value) {
      GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(name).help(help);
      if (unit != null) {
        gauge.unit(unit);
      }
      for (SeriesMetrics s : all) {
        gauge.dataPoint(point(s.labels, value.apply(s.latest)));
      }
      metrics.add(gauge.build());
    }
  }

  private static CounterDataPointSnapshot count(Labels labels, double value, long createdMs) {
    return CounterDataPointSnapshot.builder()
        .labels(labels)
        .value(value)
        .createdTimestampMillis(createdMs)
        .build();
  }

  private static GaugeDataPointSnapshot point(Labels labels, double value) {
    return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
  }

  /** ms (three decimals) to seconds, NaN when absent. */
  private static double seconds(BigDecimal ms) {
    return ms == null ? Double.NaN : ms.movePointLeft(3).doubleValue();
  }

  private static double number(BigDecimal value) {
    return value == null ? Double.NaN : value.doubleValue();
  }
}
