package io.tpotstream.producer.workload;

import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * One request's input: the messages to send (for a later turn of a conversation, the whole history
 * so far), its {@code max_tokens} (null: the config's), and its length in tokens (counted for
 * synthetic prompts, estimated for texts: {@link InputLength#estimate}). Never modify the messages.
 */
public record Turn(ArrayNode messages, Integer maxTokens, int inputTokens) {}
