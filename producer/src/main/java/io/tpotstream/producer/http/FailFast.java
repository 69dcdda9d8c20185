package io.tpotstream.producer.http;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops a model on a failure no retry can fix, before it spends the endpoint's quota or the user's
 * time: a permanent failure ({@link RequestFailure#permanent()}: a refused key, an unknown model or
 * path, a certificate nobody trusts) of a model none of whose requests has yet been answered with a
 * stream, or {@value #SHAPE_FAILURES} answers in a row that are not a stream. The other models go
 * on; the run stops once no model is left. A model that has been answered once keeps going whatever
 * follows (a transient 401 from a gateway that rotates keys is the server's to explain, and is
 * counted). Called on the event loops.
 */
public final class FailFast {
  /** Answers that were not a stream, before any that was, that stop a model. */
  static final int SHAPE_FAILURES = 3;

  private static final Logger LOG = LoggerFactory.getLogger(FailFast.class);

  private final List<String> models;
  private final Set<String> answered = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, Integer> shapeFailures = new ConcurrentHashMap<>();
  private final Map<String, RequestFailure> stopped = new LinkedHashMap<>();
  private volatile boolean anyStopped;
  private final Runnable stopRun;

  /**
   * @param models the run's models
   * @param stopRun runs once, on the loop that stopped the last model
   */
  public FailFast(List<String> models, Runnable stopRun) {
    this.models = List.copyOf(models);
    this.stopRun = stopRun;
  }

  /** A call of {@code model} ended: {@code failure} is null when the server answered a stream. */
  public void observe(String model, RequestFailure failure) {
    if (failure == null) {
      answered.add(model);
      return;
    }
    if (answered.contains(model)) {
      return;
    }
    boolean fatalNow =
        failure.permanent()
            || (failure.errorClass() == ErrorClass.PROTOCOL
                && shapeFailures.merge(model, 1, Integer::sum) >= SHAPE_FAILURES);
    if (!fatalNow) {
      return;
    }
    boolean last;
    synchronized (stopped) {
      if (stopped.putIfAbsent(model, failure) != null) {
        return;
      }
      anyStopped = true;
      last = stopped.size() == models.size();
    }
    if (models.size() > 1) {
      LOG.error(
          "model {} stopped: {}{}",
          model,
          failure.message(),
          last ? "; no model is left: the run stops" : "; the other models go on");
    }
    if (last) {
      stopRun.run();
    }
  }

  /** True when {@code model} was stopped: no more of its requests are sent. */
  public boolean stopped(String model) {
    if (!anyStopped) {
      return false;
    }
    synchronized (stopped) {
      return stopped.containsKey(model);
    }
  }

  /** The stopped models and what stopped each, in the order they stopped. */
  public Map<String, RequestFailure> stoppedModels() {
    synchronized (stopped) {
      return new LinkedHashMap<>(stopped);
    }
  }
}
