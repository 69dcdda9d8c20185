package io.tpotstream.producer.http;

import java.time.Duration;

/**
 * Exponential backoff for one endpoint that does not answer (connection refused, unknown host, a
 * TLS or connect failure, a connection closed before any response): after such a failure no request
 * goes to it for {@value #FIRST_MS} ms, then one request tries (the probe) while the others wait;
 * each probe that fails doubles the wait, up to {@value #MAX_MS} ms; any response at all (an HTTP
 * status, even an error) ends the backoff. So an endpoint where nobody listens gets a handful of
 * requests per interval instead of as many as the loops can fail. Thread-safe: the event loops and
 * the open loop's scheduler call it.
 */
public final class EndpointBackoff {
  /** The first wait after a failure to reach the endpoint, in ms. */
  public static final long FIRST_MS = 250;

  /** The longest wait between two tries, in ms (an outage's end is seen within it). */
  public static final long MAX_MS = 8_000;

  /** How a call to the endpoint ended, for the backoff. */
  public enum Outcome {
    /** A response head came (whatever its status). */
    ANSWERED,
    /** No response: the endpoint could not be reached. */
    UNREACHABLE,
    /** Neither (cancelled, or a timeout after the request was sent). */
    OTHER
  }

  /**
   * What the backoff is doing, for the live line and the result.
   *
   * @param waitingNs how long until the next try (0 when not backing off)
   * @param intervalMs the current interval between tries (0 when not backing off)
   * @param failedTries tries that failed in a row (0 when the endpoint answers)
   * @param heldBack requests not sent because the endpoint was backed off from, over the run
   * @param backoffs times the endpoint went from answering (or the start) to backed off
   */
  public record State(
      long waitingNs, long intervalMs, long failedTries, long heldBack, long backoffs) {
    public boolean backingOff() {
      return intervalMs > 0;
    }
  }

  private long intervalNs;
  private long retryAtNs;
  private boolean probing;
  private long failedTries;
  private long heldBack;
  private long backoffs;

  /**
   * May a request go to the endpoint now? Returns 0 when it may (while backing off, it is the
   * probe, and the only one until it ends), else how long to wait in ns before asking again.
   */
  public synchronized long admit(long nowNs) {
    if (intervalNs == 0) {
      return 0;
    }
    if (nowNs < retryAtNs) {
      return retryAtNs - nowNs;
    }
    if (probing) {
      return Math.min(intervalNs, Duration.ofMillis(FIRST_MS).toNanos());
    }
    probing = true;
    return 0;
  }

  /** A request that {@link #admit} held back was not sent at all (the open loop drops it). */
  public synchronized void heldBack() {
    heldBack++;
  }

  /** A call to the endpoint ended: {@code outcome} says whether it reached it. */
  public synchronized void ended(Outcome outcome, long nowNs) {
    switch (outcome) {
      case ANSWERED -> {
        intervalNs = 0;
        probing = false;
        failedTries = 0;
      }
      case UNREACHABLE -> {
        failedTries++;
        if (intervalNs == 0) {
          backoffs++;
          intervalNs = Duration.ofMillis(FIRST_MS).toNanos();
          retryAtNs = nowNs + intervalNs;
        } else if (probing) {
          // only the probe's failure lengthens the wait: calls sent before the backoff began end
          // within the same interval and say nothing new
          intervalNs = Math.min(2 * intervalNs, Duration.ofMillis(MAX_MS).toNanos());
          retryAtNs = nowNs + intervalNs;
          probing = false;
        }
      }
      case OTHER -> probing = false;
    }
  }

  /** The backoff now. */
  public synchronized State state(long nowNs) {
    return new State(
        intervalNs == 0 ? 0 : Math.max(0, retryAtNs - nowNs),
        intervalNs / 1_000_000,
        failedTries,
        heldBack,
        backoffs);
  }
}
