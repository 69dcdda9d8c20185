package io.tpotstream.producer.sse;

/**
 * One server-sent event, decoded (for tests, tools and benchmarks; the producer's own path reads
 * events from bytes with {@link SseFramer} and {@link SseFields}).
 *
 * @param event the {@code event:} field, or {@code message} when absent
 * @param data the {@code data:} lines joined by {@code \n}
 * @param arrivalNs {@code System.nanoTime()} when the network read that completed this event's last
 *     data line arrived
 */
public record SseEvent(String event, String data, long arrivalNs) {}
