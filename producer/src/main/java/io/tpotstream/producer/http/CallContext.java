package io.tpotstream.producer.http;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.publish.Handoff;
import io.vertx.core.Vertx;
import java.net.URI;
import java.util.function.LongSupplier;

/**
 * What every streaming call of a run (or of a sweep's stage) shares: the Vert.x instance, the
 * config, the API's dialect, the hand-off to the publisher, the watch for failures no retry can
 * fix, the endpoint's backoff, and where warm-up requests go ({@code warmupUrl}: the simulator
 * inside the process of a local warm-up; null: the endpoint, as every other request), and the token
 * chunks the warm-up's requests have streamed so far ({@code warmupChunks}, read on any thread).
 */
public record CallContext(
    Vertx vertx,
    ProducerConfig config,
    Dialect dialect,
    Handoff handoff,
    FailFast failFast,
    EndpointBackoff backoff,
    URI warmupUrl,
    LongSupplier warmupChunks) {}
