package io.tpotstream.producer;

import java.time.Duration;
import java.util.SortedMap;

/**
 * A running producer's state, for the progress line.
 *
 * @param finished requests of the run finished (completed or failed; warm-up left out)
 * @param planned requests planned, or -1 when the run is bounded by time
 * @param inFlight requests in flight
 * @param errors failed requests by error class
 * @param outputTokens output tokens received so far
 * @param duration the planned run length, or null
 * @param warmingUp true while warm-up requests are being sent
 * @param warmupRequests warm-up requests sent so far
 * @param heldEvents events held while Kafka is unreachable (0 when it is not)
 */
public record ProducerState(
    long finished,
    long planned,
    int inFlight,
    SortedMap<String, Long> errors,
    long outputTokens,
    Duration elapsed,
    Duration duration,
    boolean warmingUp,
    long warmupRequests,
    long heldEvents) {

  /** Output tokens per second since the start. */
  public double tokensPerSecond() {
    double s = elapsed.toNanos() / 1e9;
    return s <= 0 ? 0 : outputTokens / s;
  }
}
