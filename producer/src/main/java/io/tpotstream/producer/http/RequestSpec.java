package io.tpotstream.producer.http;

/**
 * One request to make.
 *
 * @param requestId unique id (the Kafka key and the {@code X-Request-Id} header)
 * @param model the model id
 * @param body the request body (JSON), shared by the requests of one model and prompt
 * @param intendedNs open loop: the {@code System.nanoTime()} at which it was due; null when closed
 * @param warmup true for a warm-up request: its events are marked and left out of every statistic
 */
public record RequestSpec(
    String requestId, String model, byte[] body, Long intendedNs, boolean warmup) {}
