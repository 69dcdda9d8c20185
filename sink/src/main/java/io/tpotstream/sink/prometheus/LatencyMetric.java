package io.tpotstream.sink.prometheus;

import io.tpotstream.common.Durations;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.EncodedHistograms;
import io.tpotstream.common.summary.WindowSummary;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * One of the four latencies a window summary carries, as {@code /metrics} exports it: a cumulative
 * histogram {@link #histogramName} with classic buckets at {@code boundsMicros}, and the latest
 * window's percentiles as gauges {@code tpot_window_<key>_seconds} and {@code
 * tpot_window_<key>_max_seconds}.
 */
record LatencyMetric(
    String key,
    String what,
    Function<WindowSummary, LatencySummary> summary,
    Function<EncodedHistograms, String> encoded,
    long[] boundsMicros) {

  /**
   * Per-token gaps: medians of 1-10 ms, tails to a few hundred ms (the seed's P99.99 reach 245 ms),
   * stalls of seconds. Also used for request TPOT, a per-request mean of the same gaps.
   */
  static final long[] TOKEN_GAP_BOUNDS_MICROS =
      micros(
          "500us 1ms 1.5ms 2ms 3ms 4ms 5ms 7.5ms 10ms 15ms 20ms 30ms 50ms 75ms 100ms 150ms 250ms"
              + " 500ms 1s 2.5s 5s 10s");

  /** Time to first token: tens of ms on a local server to tens of seconds for a reasoning model. */
  static final long[] TTFT_BOUNDS_MICROS =
      micros("25ms 50ms 100ms 150ms 200ms 300ms 500ms 750ms 1s 1.5s 2s 3s 5s 7.5s 10s 15s 30s 60s");

  /** Whole responses: a fraction of a second to the ten minutes of a long generation. */
  static final long[] E2E_BOUNDS_MICROS =
      micros("100ms 250ms 500ms 1s 2s 3s 5s 7.5s 10s 15s 20s 30s 45s 60s 90s 120s 180s 300s 600s");

  static final List<LatencyMetric> ALL =
      List.of(
          new LatencyMetric(
              "tpot",
              "TPOT (time between two consecutive output tokens)",
              WindowSummary::tpot,
              EncodedHistograms::tpot,
              TOKEN_GAP_BOUNDS_MICROS),
          new LatencyMetric(
              "ttft",
              "TTFT (request start to the first output token)",
              WindowSummary::ttft,
              EncodedHistograms::ttft,
              TTFT_BOUNDS_MICROS),
          new LatencyMetric(
              "request_tpot",
              "Request TPOT ((last token - first token) / (output tokens - 1), one per request)",
              WindowSummary::requestTpot,
              EncodedHistograms::requestTpot,
              TOKEN_GAP_BOUNDS_MICROS),
          new LatencyMetric(
              "e2e",
              "E2E (request start to the end of the stream)",
              WindowSummary::e2e,
              EncodedHistograms::e2e,
              E2E_BOUNDS_MICROS));

  /**
   * The cumulative histogram family: {@code tpot_<key>_seconds}, and {@code tpot_seconds} for TPOT
   * itself, the namespace's own latency.
   */
  String histogramName() {
    return key.equals("tpot") ? "tpot_seconds" : "tpot_" + key + "_seconds";
  }

  /** The gauge family of the latest window's percentiles. */
  String windowName() {
    return "tpot_window_" + key + "_seconds";
  }

  /** The gauge family of the latest window's maximum. */
  String windowMaxName() {
    return "tpot_window_" + key + "_max_seconds";
  }

  /** Bucket bounds in µs from durations as users write them (one line instead of a column). */
  private static long[] micros(String durations) {
    return Arrays.stream(durations.split(" "))
        .mapToLong(d -> Durations.parse("bucket bound", d).toNanos() / 1000)
        .toArray();
  }
}
