package io.tpotstream.producer;

import io.tpotstream.producer.engine.EngineScrapes;
import io.tpotstream.producer.http.EndpointBackoff;
import io.tpotstream.producer.http.RequestFailure;
import io.tpotstream.producer.load.LoadRunner;
import io.tpotstream.producer.publish.Publisher;
import io.tpotstream.producer.result.ModelResult;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of a producer run: per model (config order) the producer's own measurements of the
 * run's requests (warm-up requests left out), what was published, and the client's own health.
 *
 * @param stoppedEarly true when Ctrl-C, SIGTERM or {@link ProducerRun#stop()} ended the run
 * @param notSent due open-loop requests never sent because the run stopped
 * @param eventsPublished token events Kafka acknowledged (heartbeats not counted)
 * @param heartbeats heartbeat records sent (one per partition per heartbeat)
 * @param lateAtSource events whose ts was raised to a watermark already sent
 * @param clientPauseMaxUs the producer's longest own pause over the run, in µs
 * @param warmupRequests warm-up requests made (their events are marked, and left out here)
 * @param warmup the warm-up asked for ({@code 10s}, {@code 50req}, {@code 0})
 * @param warmupEnd how long a timed warm-up lasted and whether the JIT had settled; else null
 * @param loopLagMaxUs the worst lateness of an event loop's 1 ms tick over the run, in µs
 * @param tokenChunks token chunks received (warm-up included)
 * @param coalescedChunks of those, chunks that came out of the same socket read as the one before
 * @param touchedChunks of those, chunks whose gap the event loop ran more than 1 ms late in
 * @param outages Kafka outages ridden out
 * @param transport the event loops' transport ({@code epoll} or {@code nio})
 * @param stoppedModels the models a failure no retry can fix stopped, each with that failure, in
 *     the order they stopped (the run stopped once none was left)
 * @param endpoint the endpoint's backoff at the end: how often it did not answer and how many
 *     requests were held back
 * @param engine what scraping the engines' metrics came to ({@code --engine-metrics}), or null
 */
public record RunResult(
    String runId,
    String producerId,
    String topic,
    List<ModelResult> models,
    Duration elapsed,
    boolean stoppedEarly,
    long notSent,
    long eventsPublished,
    long heartbeats,
    long lateAtSource,
    long clientPauseMaxUs,
    long warmupRequests,
    String warmup,
    LoadRunner.WarmupEnd warmupEnd,
    long loopLagMaxUs,
    long tokenChunks,
    long coalescedChunks,
    long touchedChunks,
    Publisher.Outages outages,
    String transport,
    Map<String, RequestFailure> stoppedModels,
    EndpointBackoff.State endpoint,
    EngineScrapes engine) {

  public RunResult {
    stoppedModels = Collections.unmodifiableMap(new LinkedHashMap<>(stoppedModels));
  }

  /** The failure that stopped the first stopped model, or null when none was stopped. */
  public RequestFailure stoppedBy() {
    return stoppedModels.isEmpty() ? null : stoppedModels.values().iterator().next();
  }

  /**
   * Why this run's outcome cannot be trusted as a whole, in one line, or null: the models a failure
   * no retry can fix stopped (each named with that failure), or, in a bounded run, a model every
   * one of whose requests failed (with what its last failure said: where, why and what to check). A
   * run stopped by the user is not judged on the second.
   */
  public String nothingMeasured() {
    if (!stoppedModels.isEmpty()) {
      long left = models.stream().map(ModelResult::model).distinct().count() - stoppedModels.size();
      if (left <= 0 && stoppedModels.size() == 1) {
        return "stopped after the first requests: " + stoppedBy().message();
      }
      StringBuilder why = new StringBuilder();
      stoppedModels.forEach(
          (model, failure) ->
              why.append(why.isEmpty() ? "" : "; ")
                  .append("model ")
                  .append(model)
                  .append(" stopped after its first requests: ")
                  .append(failure.message()));
      return why.append(left > 0 ? " (the other models were measured)" : "").toString();
    }
    if (stoppedEarly) {
      return null;
    }
    for (ModelResult m : models) {
      if (m.failed() > 0 && m.completed() == 0) {
        return (m.stage() == null ? m.model() : m.model() + " (" + m.stage() + ")")
            + ": all "
            + m.failed()
            + " requests failed ("
            + m.errors()
            + "): nothing was measured"
            + (m.lastFailure() == null ? "" : "; the last: " + m.lastFailure());
      }
    }
    return null;
  }
}
