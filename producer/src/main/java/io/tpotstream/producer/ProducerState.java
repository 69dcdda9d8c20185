package io.tpotstream.producer;

import io.tpotstream.producer.http.EndpointBackoff;
import java.time.Duration;
import java.util.List;
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
 * @param stoppedModels models stopped by a failure no retry can fix
 * @param endpoint the endpoint's backoff (whether it answers)
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
    long heldEvents,
    List<String> stoppedModels,
    EndpointBackoff.State endpoint) {

  /** Output tokens per second since the start. */
  public double tokensPerSecond() {
    double s = elapsed.toNanos() / 1e9;
    return s <= 0 ? 0 : outputTokens / s;
  }
}
