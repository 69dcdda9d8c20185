package io.tpotstream.producer.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.SortedMap;

/**
 * One request to make.
 *
 * @param requestId unique id (the Kafka key and the {@code X-Request-Id} header)
 * @param model the model id
 * @param messages the conversation to send
 * @param intendedNs open loop: the {@code System.nanoTime()} at which it was due; null when closed
 * @param maxTokens the {@code max_tokens} to send (the turn's, else the config's), or null for none
 * @param labels the labels on every event of this request: the run's, its sweep stage, and its
 *     prompt's {@code input_len} class
 */
public record RequestSpec(
    String requestId,
    String model,
    ArrayNode messages,
    Long intendedNs,
    Integer maxTokens,
    SortedMap<String, String> labels) {}
