package io.tpotstream.producer.sse;

/**
 * One server-sent event.
 *
 * @param event the {@code event:} field, or {@code message} when absent
 * @param data the {@code data:} lines joined by {@code \n}
 * @param id the last event id seen so far, or empty
 * @param arrivalNs {@code System.nanoTime()} when the network read that completed this event
 *     arrived
 */
public record SseEvent(String event, String data, String id, long arrivalNs) {}
