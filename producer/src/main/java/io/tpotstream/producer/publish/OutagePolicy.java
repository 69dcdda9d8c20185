package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a {@link Publisher} does when Kafka cannot take its events, chosen by whoever opens it:
 * {@link #stop()} (the producer) or {@link #drop()} (the proxy). Under both, events wait in the
 * {@link OutageBuffer} while Kafka is away and go out in order when it returns; they differ when
 * waiting is no longer possible. One policy serves one publisher: each call makes a new one.
 */
public abstract sealed class OutagePolicy permits StopOnOutage, DropOnOutage {
  private final AtomicLong dropped = new AtomicLong();
  private Publisher publisher;

  OutagePolicy() {}

  /**
   * Stops the run, whose events they are (the producer's): Kafka is reached before the run starts,
   * and a full hand-off or outage buffer, an outage longer than {@code delivery.timeout.ms} or a
   * record Kafka rejects for good stops it, with the number of events at risk.
   */
  public static OutagePolicy stop() {
    return new StopOnOutage();
  }

  /**
   * Drops and counts, never stops, because the traffic measured is not the publisher's to stop (the
   * proxy's): the publisher opens at once and reaches Kafka in the background (every 5 s), rides
   * out outages of any length, and when the hand-off or the outage buffer is full drops the
   * request's remaining events. Kafka's errors are logged and counted as drops; the count goes out
   * on the heartbeats ({@code droppedEvents}).
   */
  public static OutagePolicy drop() {
    return new DropOnOutage();
  }

  /** Events dropped so far (a lost hand-off entry counts as one); any thread. */
  final long dropped() {
    return dropped.get();
  }

  /** Counts {@code n} more events dropped; returns the count so far. */
  final long countDropped(long n) {
    return dropped.addAndGet(n);
  }

  /** Binds this policy to the publisher it serves (once). */
  final void serve(Publisher served) {
    if (publisher != null) {
      throw new IllegalStateException(
          "an OutagePolicy serves one publisher: make a new one with stop() or drop()");
    }
    publisher = served;
  }

  final Publisher publisher() {
    return publisher;
  }

  /** Opens a publisher under this policy (reaching Kafka as it does) and starts its thread. */
  abstract Publisher open(KafkaSettings settings, Publisher.Wiring wiring);

  /** True once Kafka was reached; any thread. */
  abstract boolean connected();

  /** Called by the publisher loop at {@code nowNs} while not {@link #connected}. */
  abstract void connect(long nowNs);

  /** The hand-off from the event loops was full: {@code lost} entries so far (a loop's thread). */
  abstract void handoffFull(long lost);

  /** True when an event of {@code request} is not to be held (counted when it is dropped). */
  abstract boolean skips(MeasuredRequest request);

  /**
   * The outage buffer had no room for {@code event} of {@code request} (either may be null: no
   * request; a token event held as numbers).
   */
  abstract void full(MeasuredRequest request, TokenEvent event);

  /** How the console's outage warning ends: what happens next. */
  abstract String whenFull(long deliveryTimeoutNs);

  /** True when an outage longer than {@code delivery.timeout.ms} stops publishing. */
  abstract boolean stopsOnLongOutage();

  /**
   * Kafka did not take a record ({@code event}: an event, else a heartbeat), on the client's
   * thread. True when it is counted lost and publishing goes on; false when publishing stopped.
   */
  abstract boolean lost(Exception error, boolean event);

  /** The heartbeat as it goes out. */
  abstract TokenEvent stamp(TokenEvent heartbeat);

  /** When, at the end ({@code endNs}), to stop waiting for Kafka to take what is held. */
  abstract long giveUpAt(long endNs);

  /**
   * At the end, once the held events went out or were given up: true when Kafka is away and the
   * publisher stops without final heartbeats (what was left is dropped).
   */
  abstract boolean abandons();

  /** {@code unacked} events were not acknowledged by the end of the run. */
  abstract void unacknowledgedAtEnd(long unacked);

  /** True when Kafka is away, so that closing the client must not wait for it. */
  abstract boolean away();
}
