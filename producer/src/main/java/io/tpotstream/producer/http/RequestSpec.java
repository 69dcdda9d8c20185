package io.tpotstream.producer.http;

import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * One request to make.
 *
 * @param requestId unique id (the Kafka key and the {@code X-Request-Id} header)
 * @param model the model id
 * @param messages the conversation to send
 * @param intendedNs open loop: the {@code System.nanoTime()} at which it was due; null when closed
 * @param warmup true for a warm-up request: its events are marked and left out of every statistic
 */
public record RequestSpec(
    String requestId, String model, ArrayNode messages, Long intendedNs, boolean warmup) {}
