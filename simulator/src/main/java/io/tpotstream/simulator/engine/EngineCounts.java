package io.tpotstream.simulator.engine;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One model's series of {@link EngineMetrics}: what the engine did for it since the simulator
 * started. Event loops record into it without a lock (atomics only); {@link EngineMetrics} reads it
 * when scraped.
 */
public final class EngineCounts {
  /** vLLM's bounds of {@code vllm:time_to_first_token_seconds}, in seconds. */
  static final List<String> TTFT_BOUNDS =
      List.of(
          "0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "0.75",
          "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0", "160.0", "640.0", "2560.0");

  /** vLLM's bounds of {@code vllm:inter_token_latency_seconds}, in seconds. */
  static final List<String> ITL_BOUNDS =
      List.of(
          "0.01", "0.025", "0.05", "0.075", "0.1", "0.15", "0.2", "0.3", "0.4", "0.5", "0.75",
          "1.0", "2.5", "5.0", "7.5", "10.0", "20.0", "40.0", "80.0");

  /**
   * vLLM's bounds of {@code vllm:e2e_request_latency_seconds} and {@code
   * vllm:request_queue_time_seconds}, in seconds.
   */
  static final List<String> REQUEST_LATENCY_BOUNDS =
      List.of(
          "0.3", "0.5", "0.8", "1.0", "1.5", "2.0", "2.5", "5.0", "10.0", "15.0", "20.0", "30.0",
          "40.0", "50.0", "60.0", "120.0", "240.0", "480.0", "960.0", "1920.0", "7680.0");

  final FixedBuckets ttft = new FixedBuckets(TTFT_BOUNDS);
  final FixedBuckets interTokenLatency = new FixedBuckets(ITL_BOUNDS);
  final FixedBuckets e2eLatency = new FixedBuckets(REQUEST_LATENCY_BOUNDS);
  final FixedBuckets queueTime = new FixedBuckets(REQUEST_LATENCY_BOUNDS);
  final AtomicLong running = new AtomicLong();
  final AtomicLong prefixCacheQueries = new AtomicLong();
  final AtomicLong prefixCacheHits = new AtomicLong();
  final AtomicLong promptTokens = new AtomicLong();
  final AtomicLong generationTokens = new AtomicLong();
  final AtomicLongArray finished = new AtomicLongArray(FinishReason.values().length);

  EngineCounts() {}

  /**
   * The engine took a request on: it runs from now until {@link #finished} or {@link #aborted}, and
   * with a prefix cache ({@code cachedTokens} not null) its {@code promptTokens} were looked up
   * there and {@code cachedTokens} of them found, as vLLM counts queries and hits (in tokens).
   */
  public void accepted(int promptTokens, Integer cachedTokens) {
    running.incrementAndGet();
    if (cachedTokens != null) {
      prefixCacheQueries.addAndGet(promptTokens);
      prefixCacheHits.addAndGet(cachedTokens);
    }
  }

  /**
   * The engine produced a request's first chunk, of {@code tokens} tokens, {@code ttftNs} after the
   * request arrived; its prefill of {@code promptTokens} is done.
   */
  public void firstChunk(long ttftNs, int promptTokens, int tokens) {
    ttft.observeNs(ttftNs);
    this.promptTokens.addAndGet(promptTokens);
    generationTokens.addAndGet(tokens);
  }

  /** The engine produced a later chunk, of {@code tokens} tokens, {@code gapNs} after the last. */
  public void nextChunk(long gapNs, int tokens) {
    interTokenLatency.observeNs(gapNs);
    generationTokens.addAndGet(tokens);
  }

  /**
   * A request ended whole, for {@code reason}, {@code e2eNs} after it arrived; it waited {@code
   * queueNs} before its prefill.
   */
  public void finished(FinishReason reason, long e2eNs, long queueNs) {
    running.decrementAndGet();
    finished.incrementAndGet(reason.ordinal());
    e2eLatency.observeNs(e2eNs);
    queueTime.observeNs(queueNs);
  }

  /** A request ended early (cut, or its client gone): counted as {@code abort}, timed nowhere. */
  public void aborted() {
    running.decrementAndGet();
    finished.incrementAndGet(FinishReason.ABORT.ordinal());
  }
}
