package io.tpotstream.proxy.events;

import io.tpotstream.common.event.TokenEvent;

/**
 * Where the proxy's token events go. {@link #publish} is called on event loops and never blocks nor
 * fails: an event that cannot be taken (Kafka slow or down) is dropped and counted, because the
 * traffic the proxy measures must never wait for its measurement.
 */
public interface EventSink extends AutoCloseable {
  /** Hands an event over, or drops and counts it. */
  void publish(TokenEvent event);

  /** Events handed to Kafka so far. */
  long published();

  /** Events dropped so far. */
  long dropped();

  /** Sends what is held, then the final heartbeat to every partition (a bounded wait). */
  @Override
  void close();
}
