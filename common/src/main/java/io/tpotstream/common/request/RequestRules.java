package io.tpotstream.common.request;

/**
 * The per-request sample rules (docs/design.md, "Words"), in one place for the producer's table,
 * the aggregator, offline {@code stats} and the per-request records: how a chunk's gap becomes TPOT
 * samples, which chunk gives the TTFT, when a response is too short, how many output tokens it had
 * and its request TPOT. Times in, µs out, rounded half up.
 */
public final class RequestRules {
  private RequestRules() {}

  /** ns to µs, rounded half up (as {@link io.tpotstream.common.stats.LatencyHistogram}). */
  public static long micros(long nanos) {
    return divideRounded(nanos, 1000);
  }

  /**
   * The TPOT sample, in µs, of a chunk that arrived {@code gapNs} after the previous one and
   * carries {@code tokens} tokens: gap/k, recorded k times (a chunk of one token: the gap itself).
   */
  public static long gapMicros(long gapNs, int tokens) {
    return divideRounded(gapNs, 1000L * Math.max(1, tokens));
  }

  /** Tokens a chunk counts for: its {@code tokens} field, at least 1. */
  public static int chunkTokens(Integer tokens) {
    return tokens == null ? 1 : Math.max(1, tokens);
  }

  /** The TTFT is the elapsed time of chunk 0 (a duplicate or a later first chunk gives none). */
  public static boolean givesTtft(int seq) {
    return seq == 0;
  }

  /** A complete response with fewer than two output-token chunks gives no TPOT sample. */
  public static boolean tooShort(int chunks) {
    return chunks < 2;
  }

  /** Output tokens: the API's reported completion tokens when it reported usage, else the count. */
  public static long outputTokens(Integer completionTokens, long tokensInChunks) {
    return completionTokens != null ? completionTokens : tokensInChunks;
  }

  /**
   * Request TPOT in µs: (last − first chunk arrival) / (output tokens − tokens of the first chunk),
   * or -1 when that divisor is not positive (no request TPOT).
   */
  public static long requestTpotMicros(
      long firstElapsedNs, long lastElapsedNs, long outputTokens, int firstChunkTokens) {
    long divisor = outputTokens - firstChunkTokens;
    if (divisor <= 0) {
      return -1;
    }
    return divideRounded(lastElapsedNs - firstElapsedNs, 1000L * divisor);
  }

  /** {@code numerator / divisor} rounded half up (floor of n/d + 1/2), for a positive divisor. */
  public static long divideRounded(long numerator, long divisor) {
    return Math.floorDiv(numerator + divisor / 2, divisor);
  }
}
