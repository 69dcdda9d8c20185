package io.tpotstream.producer.http;

import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.publish.Handoff;
import io.vertx.core.Vertx;

/**
 * What every streaming call of a run (or of a sweep's stage) shares: the Vert.x instance, the
 * config, the API's dialect, the hand-off to the publisher and the watch for failures no retry can
 * fix.
 */
public record CallContext(
    Vertx vertx, ProducerConfig config, Dialect dialect, Handoff handoff, FailFast failFast) {}
