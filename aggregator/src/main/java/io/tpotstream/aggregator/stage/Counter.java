package io.tpotstream.aggregator.stage;

import io.tpotstream.common.summary.WindowStats;

/** The counts of a window besides its histograms and error classes. */
public enum Counter {
  STARTED,
  /** Complete with at least two output-token chunks. */
  COMPLETED_FULL,
  /** Complete with fewer than two output-token chunks: no TPOT sample. */
  TOO_SHORT,
  ABANDONED,
  /**
   * Output tokens of first chunks. A later chunk of k tokens gives exactly k TPOT samples in its
   * window, so a window's output tokens are these plus its TPOT count: one store update per chunk
   * saved.
   */
  FIRST_CHUNK_TOKENS,
  LATE_SAMPLES,
  /** Latency samples outside the histogram range, clamped on record (logged, not summarised). */
  CLAMPED,
  /** Finished requests that met every {@code --goodput} limit. */
  GOOD;

  private static final Counter[] VALUES = values();

  static Counter ofCode(int code) {
    return VALUES[code];
  }

  void addTo(WindowStats stats, long count) {
    switch (this) {
      case STARTED -> stats.started(count);
      case COMPLETED_FULL -> stats.completed(count, false);
      case TOO_SHORT -> stats.completed(count, true);
      case ABANDONED -> stats.abandoned(count);
      case FIRST_CHUNK_TOKENS -> stats.outputTokens(count);
      case LATE_SAMPLES -> stats.lateSamples(count);
      case CLAMPED -> {}
      case GOOD -> stats.good(count);
    }
  }
}
