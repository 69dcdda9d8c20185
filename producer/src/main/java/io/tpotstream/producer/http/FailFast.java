package io.tpotstream.producer.http;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Stops a run on a failure no retry can fix, before it spends the endpoint's quota or the user's
 * time: a permanent failure ({@link RequestFailure#permanent()}) of a model none of whose requests
 * has yet been answered, or {@value #SHAPE_FAILURES} answers in a row that are not a stream. A
 * model that has been answered once keeps going whatever follows (a transient 401 from a gateway
 * that rotates keys is the server's to explain, and is counted). Called on the event loops.
 */
public final class FailFast {
  /** Answers that were not a stream, before any that was, that stop the run. */
  static final int SHAPE_FAILURES = 3;

  private final Set<String> answered = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, Integer> shapeFailures = new ConcurrentHashMap<>();
  private final AtomicReference<RequestFailure> fatal = new AtomicReference<>();
  private final Runnable stop;

  /** {@code stop} runs once, on the loop that saw the first fatal failure. */
  public FailFast(Runnable stop) {
    this.stop = stop;
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
    if (fatalNow && fatal.compareAndSet(null, failure)) {
      stop.run();
    }
  }

  /** The failure that stopped the run, or null. */
  public RequestFailure fatal() {
    return fatal.get();
  }
}
