package io.tpotstream.simulator;

import io.tpotstream.simulator.truth.RequestTruth;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/** The ground truth of a request once the simulator has recorded its end. */
final class EndedTruth {
  private EndedTruth() {}

  static RequestTruth of(Simulator simulator, String requestId) {
    try {
      return simulator
          .truth()
          .awaitEnd(requestId, Duration.ofSeconds(10))
          .orElseThrow(() -> new AssertionError("no truth kept for request " + requestId));
    } catch (TimeoutException e) {
      throw new AssertionError(e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
