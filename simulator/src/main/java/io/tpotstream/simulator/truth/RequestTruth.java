package io.tpotstream.simulator.truth;

import java.util.List;

/**
 * The ground truth of one request: when each chunk was actually sent.
 *
 * @param requestId the client's {@code X-Request-Id}, or the simulator's {@code sim-N}
 * @param arrivalNs {@link System#nanoTime()} when the request's body had arrived
 * @param malformedLines injected invalid {@code data:} lines (not in {@code chunks})
 * @param promptTokens the prompt's tokens as {@code prompt_tokens} reports them (0: the request was
 *     refused before its prompt was read, a 429 or a 500)
 * @param cachedTokens of those, the ones the prefix cache held; null without a cache (or refused)
 * @param gatewayDelayNs how much later than the engine produced them its chunks reached the socket
 *     (its profile's {@code gatewayDelayMs}; 0 when refused): the engine's TTFT is chunk 0's {@code
 *     sentNs} minus this minus {@code arrivalNs}
 */
public record RequestTruth(
    String requestId,
    String model,
    long arrivalNs,
    Outcome outcome,
    List<ChunkTruth> chunks,
    int malformedLines,
    int promptTokens,
    Integer cachedTokens,
    long gatewayDelayNs) {

  /** The gaps between consecutive chunk sends, in ns ({@code chunks - 1} of them). */
  public long[] gapsNs() {
    long[] gaps = new long[Math.max(0, chunks.size() - 1)];
    for (int i = 1; i < chunks.size(); i++) {
      gaps[i - 1] = chunks.get(i).sentNs() - chunks.get(i - 1).sentNs();
    }
    return gaps;
  }

  /** Output tokens sent. */
  public int tokens() {
    return chunks.stream().mapToInt(ChunkTruth::tokens).sum();
  }
}
