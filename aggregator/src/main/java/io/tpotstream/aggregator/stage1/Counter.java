package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.WindowCounts;

/** The counts of a window besides its histograms and error classes. */
enum Counter {
  STARTED(true),
  /** Complete with at least two output-token chunks. */
  COMPLETED_FULL(true),
  /** Complete with fewer than two output-token chunks: no TPOT sample. */
  TOO_SHORT(true),
  ABANDONED(true),
  /** Output tokens of first chunks (see {@link WindowCounts#firstChunkTokens}). */
  FIRST_CHUNK_TOKENS(false),
  /** TPOT samples from chunks that arrived in one socket read with the chunk before. */
  COALESCED_GAPS(false),
  /** Warm-up requests, each once, in the window of its start (no statistic of its own). */
  WARMUP_REQUESTS(false),
  /**
   * Finished requests that met every {@code --goodput} limit (a late one is already reported by its
   * completion count).
   */
  GOOD(false),
  /**
   * Completed requests whose usage reported cached prompt tokens (the completion is already
   * reported late, as are the two sums below).
   */
  CACHE_REQUESTS(false),
  /** The prompt tokens of those requests. */
  CACHE_PROMPT_TOKENS(false),
  /** Of those, the tokens read from the server's prefix cache. */
  CACHED_TOKENS(false);

  /** Whether a count for a closed window is reported as late (else it is only dropped). */
  final boolean countsLate;

  Counter(boolean countsLate) {
    this.countsLate = countsLate;
  }

  void addTo(WindowCounts counts, long n) {
    switch (this) {
      case STARTED -> counts.started(n);
      case COMPLETED_FULL -> counts.completedFull(n);
      case TOO_SHORT -> counts.tooShort(n);
      case ABANDONED -> counts.abandoned(n);
      case FIRST_CHUNK_TOKENS -> counts.firstChunkTokens(n);
      case COALESCED_GAPS -> counts.coalescedGaps(n);
      case WARMUP_REQUESTS -> counts.warmupRequests(n);
      case GOOD -> counts.goodRequests(n);
      case CACHE_REQUESTS -> counts.promptCache(n, 0, 0);
      case CACHE_PROMPT_TOKENS -> counts.promptCache(0, n, 0);
      case CACHED_TOKENS -> counts.promptCache(0, 0, n);
    }
  }
}
