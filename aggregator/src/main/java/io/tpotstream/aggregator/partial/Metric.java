package io.tpotstream.aggregator.partial;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowStats;

/** The latency histograms of a window (docs/design.md, "Window summary"), all in µs. */
public enum Metric {
  TPOT,
  TTFT,
  REQUEST_TPOT,
  E2E,
  SCHEDULE_LAG,
  TTFT_FROM_INTENDED,
  /** The TPOT samples whose gap the producer's own lag touched (a subset of {@link #TPOT}). */
  TPOT_CLIENT_TOUCHED,
  /** The same samples with the client's lag taken out of their gap. */
  TPOT_CLIENT_CORRECTED;

  static final Metric[] VALUES = values();

  /** The histogram of {@code stats} this metric records into. */
  LatencyHistogram of(WindowStats stats) {
    return switch (this) {
      case TPOT -> stats.tpot;
      case TTFT -> stats.ttft;
      case REQUEST_TPOT -> stats.requestTpot;
      case E2E -> stats.e2e;
      case SCHEDULE_LAG -> stats.scheduleLag;
      case TTFT_FROM_INTENDED -> stats.ttftFromIntended;
      case TPOT_CLIENT_TOUCHED -> stats.tpotClientTouched;
      case TPOT_CLIENT_CORRECTED -> stats.tpotClientCorrected;
    };
  }
}
