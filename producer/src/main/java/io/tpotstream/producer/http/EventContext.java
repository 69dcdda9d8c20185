package io.tpotstream.producer.http;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.publish.AnchoredClock;
import java.util.SortedMap;
import java.util.function.Consumer;

/**
 * What every event of a run shares, and where events go.
 *
 * @param sink hands an event to the publisher (non-blocking)
 */
public record EventContext(
    String runId,
    String producerId,
    SortedMap<String, String> labels,
    AnchoredClock clock,
    Consumer<TokenEvent> sink) {}
