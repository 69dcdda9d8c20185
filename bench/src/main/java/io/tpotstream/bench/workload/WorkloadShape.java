package io.tpotstream.bench.workload;

import java.time.Duration;

/**
 * The shape of a synthetic producer's traffic: {@code streams} requests in flight at all times,
 * spread over {@code models} models, each streaming {@code minTokens..maxTokens} output tokens with
 * log-normal gaps of median {@code gapMedianMs}, and a share of requests cut mid-stream.
 *
 * @param targetRecords stop starting requests once this many events (heartbeats aside) are planned;
 *     the generator ends at or a little below it, with every request finished
 * @param models distinct models (series)
 * @param streams requests in flight at once (synthetic time)
 * @param minTokens fewest output tokens in a request
 * @param maxTokens most output tokens in a request
 * @param gapMedianMs median gap between tokens (20 ms is 50 tokens/s)
 * @param failedShare share of requests that end in a {@code truncated} error
 * @param partitions partitions of the topic (heartbeats go to each)
 * @param seed seed of every random draw
 */
public record WorkloadShape(
    long targetRecords,
    int models,
    int streams,
    int minTokens,
    int maxTokens,
    double gapMedianMs,
    double failedShare,
    int partitions,
    long seed) {

  /** Heartbeats every second of synthetic time, as a producer sends them. */
  public static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(1);

  public WorkloadShape {
    if (targetRecords < 1 || models < 1 || streams < 1 || partitions < 1) {
      throw new IllegalArgumentException("records, models, streams and partitions must be >= 1");
    }
    if (minTokens < 1 || maxTokens < minTokens) {
      throw new IllegalArgumentException("need 1 <= minTokens <= maxTokens");
    }
  }

  /**
   * Chat-like requests: 64 to 448 tokens at 50 tokens/s, 256 streams over 20 models, 1% cut short.
   */
  public static WorkloadShape chat(long targetRecords, int partitions) {
    return new WorkloadShape(targetRecords, 20, 256, 64, 448, 20, 0.01, partitions, 42);
  }

  /** Many tiny requests (2 tokens each), for state that must not grow with the request count. */
  public static WorkloadShape shortRequests(long requests, int partitions) {
    return new WorkloadShape(requests * 4, 20, 500, 2, 2, 20, 0, partitions, 43);
  }
}
