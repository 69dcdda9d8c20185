package io.tpotstream.producer;

import io.tpotstream.producer.config.ProducerConfig;
import java.net.URI;

/**
 * Where a local warm-up's requests go ({@link io.tpotstream.producer.config.Warmup#LOCAL}): a
 * server inside this process that streams the run's models in the run's API. The producer does not
 * bring one (it does not depend on the server it is tested against): the command that starts the
 * run gives a {@link Starter}. The warm-up requests take the run's whole path (its HTTP clients,
 * SSE, the dialect, the publisher, Kafka; their events marked {@code warmup: true}) while the JIT
 * compiles it, and the endpoint sees none of them.
 */
public interface WarmupServer extends AutoCloseable {
  /** The streaming URL ({@code …/chat/completions} or {@code …/messages}, per the run's API). */
  URI streamUrl();

  /** Stops the server; streams still in flight end at once. */
  @Override
  void close();

  /** Starts a warm-up server for a run. */
  @FunctionalInterface
  interface Starter {
    /** A server for {@code config}'s models in its API, on a free loopback port. */
    WarmupServer start(ProducerConfig config);
  }
}
