package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.snapshots.Labels;
import io.tpotstream.common.event.ErrorClasses;
import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.EncodedHistograms;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowSummary;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What {@code /metrics} holds for one series: the latest closed window (for the per-window gauges)
 * and, added up over every window the sink has read since it started, the request, error, token,
 * sample and engine-scrape counters and the four latency histograms. Not thread-safe ({@link
 * PrometheusView} guards it).
 */
final class SeriesMetrics {
  static final List<String> OUTCOMES =
      List.of("started", "completed", "failed", "too_short", "abandoned");

  /**
   * Error classes a series shows beyond the known ones; later new classes count as {@value #OTHER}.
   */
  static final int MAX_EXTRA_ERROR_CLASSES = 20;

  /** The error class that the classes beyond the cap are counted under. */
  static final String OTHER = "other";

  final Labels labels;

  /** When this series' counters started (the sink met it), epoch ms: their {@code _created}. */
  final long createdMs;

  WindowSummary latest;
  private long lastCountedEndMs = Long.MIN_VALUE;
  final long[] requests = new long[OUTCOMES.size()];
  final SortedMap<String, Long> errors = new TreeMap<>();
  long outputTokens;
  long lateSamples;
  long coalescedGaps;
  long clientTouchedGaps;
  long warmupRequests;
  long windows;
  long suspectWindows;
  long sloWindows;
  long sloMissedWindows;
  long goodRequests;
  long cachePromptTokens;
  long cachedTokens;
  long engineScrapes;
  long engineFailedScrapes;
  long foldedErrors;
  final CumulativeHistogram[] histograms = new CumulativeHistogram[LatencyMetric.ALL.size()];

  SeriesMetrics(Labels labels, long createdMs) {
    this.labels = labels;
    this.createdMs = createdMs;
    ErrorClasses.KNOWN.forEach(errorClass -> errors.put(errorClass, 0L));
    for (int i = 0; i < histograms.length; i++) {
      histograms[i] = new CumulativeHistogram(LatencyMetric.ALL.get(i).boundsMicros());
    }
  }

  /** Keeps {@code summary} for the gauges when it is this series' latest window so far. */
  void keepLatest(WindowSummary summary) {
    if (latest == null || summary.windowEndMs() >= latest.windowEndMs()) {
      latest = summary;
    }
  }

  /**
   * Adds {@code summary} to the counters and histograms, unless a window at or before it was
   * already counted (a summary read twice must not count twice).
   *
   * @return false when it was not counted
   * @throws IllegalArgumentException when an encoded histogram cannot be decoded (nothing counted)
   */
  boolean count(WindowSummary summary) {
    if (summary.windowEndMs() <= lastCountedEndMs) {
      return false;
    }
    LatencyHistogram[] decoded = new LatencyHistogram[histograms.length];
    EncodedHistograms encoded = summary.histograms();
    for (int i = 0; i < decoded.length; i++) {
      String base64 = encoded == null ? null : LatencyMetric.ALL.get(i).encoded().apply(encoded);
      decoded[i] = base64 == null ? new LatencyHistogram() : HistogramCodec.decode(base64);
    }
    for (int i = 0; i < decoded.length; i++) {
      histograms[i].add(decoded[i]);
    }
    RequestCounts r = summary.requests();
    if (r != null) {
      long[] counts = {r.started(), r.completed(), r.failed(), r.tooShort(), r.abandoned()};
      for (int i = 0; i < counts.length; i++) {
        requests[i] += counts[i];
      }
      r.errors().forEach(this::countErrors);
    }
    outputTokens += summary.outputTokens();
    lateSamples += summary.lateSamples();
    coalescedGaps += summary.coalescedGaps();
    if (summary.clientTouched() != null) {
      clientTouchedGaps += summary.clientTouched().gaps();
    }
    warmupRequests += summary.warmupRequests();
    windows++;
    if (Boolean.TRUE.equals(summary.clientSuspect())) {
      suspectWindows++;
    }
    if (summary.slo() != null) {
      sloWindows++;
      if (!summary.slo().met()) {
        sloMissedWindows++;
      }
      if (summary.slo().goodRequests() != null) {
        goodRequests += summary.slo().goodRequests();
      }
    }
    if (summary.promptCache() != null) {
      cachePromptTokens += summary.promptCache().promptTokens();
      cachedTokens += summary.promptCache().cachedTokens();
    }
    if (summary.engine() != null) {
      engineScrapes += summary.engine().scrapes();
      engineFailedScrapes += summary.engine().failedScrapes();
    }
    lastCountedEndMs = summary.windowEndMs();
    return true;
  }

  /**
   * Counts {@code n} errors of a class from events: bounded, and folded into other past the cap.
   */
  private void countErrors(String errorClass, long n) {
    String label = PrometheusLabels.value(errorClass);
    if (!errors.containsKey(label)
        && errors.size() >= ErrorClasses.KNOWN.size() + MAX_EXTRA_ERROR_CLASSES) {
      label = OTHER;
      foldedErrors += n;
    }
    errors.merge(label, n, Long::sum);
  }
}
