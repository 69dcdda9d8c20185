package io.tpotstream.sink.prometheus;

import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.EncodedHistograms;
import io.tpotstream.common.summary.WindowSummary;
import java.util.List;
import java.util.function.Function;

/**
 * One of the four latencies a window summary carries, as {@code /metrics} exports it: a cumulative
 * histogram {@code histogramName} with classic buckets at {@code boundsMicros}, and the latest
 * window's percentiles as gauges {@code tpot_window_<key>_seconds} and {@code
 * tpot_window_<key>_max_seconds}.
 */
record LatencyMetric(
    String key,
    String histogramName,
    String what,
    Function<WindowSummary, LatencySummary> summary,
    Function<EncodedHistograms, String> encoded,
    long[] boundsMicros) {

  /**
   * Per-token gaps: medians of 1-10 ms, tails to a few hundred ms (the seed's P99.99 reach 245 ms),
   * stalls of seconds. Also used for request TPOT, a per-request mean of the same gaps.
   */
  static final long[] TOKEN_GAP_BOUNDS_MICROS = {
    500,
    1_000,
    1_500,
    2_000,
    3_000,
    4_000,
    5_000,
    7_500,
    10_000,
    15_000,
    20_000,
    30_000,
    50_000,
    75_000,
    100_000,
    150_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000
  };

  /** Time to first token: tens of ms on a local server to tens of seconds for a reasoning model. */
  static final long[] TTFT_BOUNDS_MICROS = {
    25_000,
    50_000,
    100_000,
    150_000,
    200_000,
    300_000,
    500_000,
    750_000,
    1_000_000,
    1_500_000,
    2_000_000,
    3_000_000,
    5_000_000,
    7_500_000,
    10_000_000,
    15_000_000,
    30_000_000,
    60_000_000
  };

  /** Whole responses: a fraction of a second to the ten minutes of a long generation. */
  static final long[] E2E_BOUNDS_MICROS = {
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_000_000,
    3_000_000,
    5_000_000,
    7_500_000,
    10_000_000,
    15_000_000,
    20_000_000,
    30_000_000,
    45_000_000,
    60_000_000,
    90_000_000,
    120_000_000,
    180_000_000,
    300_000_000,
    600_000_000
  };

  static final List<LatencyMetric> ALL =
      List.of(
          new LatencyMetric(
              "tpot",
              "tpot_seconds",
              "TPOT (time between two consecutive output tokens)",
              WindowSummary::tpot,
              EncodedHistograms::tpot,
              TOKEN_GAP_BOUNDS_MICROS),
          new LatencyMetric(
              "ttft",
              "tpot_ttft_seconds",
              "TTFT (request start to the first output token)",
              WindowSummary::ttft,
              EncodedHistograms::ttft,
              TTFT_BOUNDS_MICROS),
          new LatencyMetric(
              "request_tpot",
              "tpot_request_tpot_seconds",
              "Request TPOT ((last token - first token) / (output tokens - 1), one per request)",
              WindowSummary::requestTpot,
              EncodedHistograms::requestTpot,
              TOKEN_GAP_BOUNDS_MICROS),
          new LatencyMetric(
              "e2e",
              "tpot_e2e_seconds",
              "E2E (request start to the end of the stream)",
              WindowSummary::e2e,
              EncodedHistograms::e2e,
              E2E_BOUNDS_MICROS));

  /** The gauge family of the latest window's percentiles. */
  String windowName() {
    return "tpot_window_" + key + "_seconds";
  }

  /** The gauge family of the latest window's maximum. */
  String windowMaxName() {
    return "tpot_window_" + key + "_max_seconds";
  }
}
