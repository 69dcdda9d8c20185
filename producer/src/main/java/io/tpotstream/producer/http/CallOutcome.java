package io.tpotstream.producer.http;

import io.tpotstream.common.engine.EngineTiming;
import java.util.SortedMap;

/**
 * What one request measured. Times are {@code System.nanoTime()} readings.
 *
 * @param requestId the request's id (its events' key)
 * @param labels the labels its events carried
 * @param startNs the request start
 * @param arrivalsNs arrival of each output-token chunk, in order ({@code chunks} of them)
 * @param tokensPerChunk tokens each chunk carried (1 unless per-chunk usage said more)
 * @param chunks output-token chunks received
 * @param endNs when the stream ended or failed
 * @param completionTokens the API's reported completion tokens, or null
 * @param promptTokens the API's reported prompt tokens (cached ones included), or null
 * @param cachedTokens of those, the ones it reported as read from its prefix cache, or null
 * @param failure why it failed, or null when it completed
 * @param scheduleLagNs open loop: actual minus intended start; null when closed
 * @param askedTokens the output length a trace asked for, or null
 * @param engineTiming what the server said of the request (vLLM's per-request metrics, µs,
 *     checked), or null
 */
public record CallOutcome(
    String requestId,
    String model,
    SortedMap<String, String> labels,
    long startNs,
    long[] arrivalsNs,
    int[] tokensPerChunk,
    int chunks,
    long endNs,
    Integer completionTokens,
    Integer promptTokens,
    Integer cachedTokens,
    RequestFailure failure,
    Long scheduleLagNs,
    Integer askedTokens,
    EngineTiming engineTiming) {

  public boolean completed() {
    return failure == null;
  }

  /**
   * True when it completed with fewer output tokens than a trace asked for (the server stopped
   * early: an end-of-sequence token, a stop word, its own limit).
   */
  public boolean endedShort() {
    return completed() && askedTokens != null && outputTokens() < askedTokens;
  }

  /** Output tokens: the reported completion tokens when known, else the token chunks. */
  public long outputTokens() {
    return completionTokens != null ? completionTokens : sumTokens();
  }

  private long sumTokens() {
    long sum = 0;
    for (int i = 0; i < chunks; i++) {
      sum += tokensPerChunk[i];
    }
    return sum;
  }
}
