package io.tpotstream.producer.workload;

import java.util.SortedMap;

/**
 * One request of a trace, as its line gives it (checked against {@link TraceBounds}).
 *
 * @param line the line it was read from (from 1), for messages
 * @param offsetMs when it starts, in ms from the trace's start
 * @param inputTokens the prompt's length in tokens
 * @param outputTokens the output's length in tokens, asked for as {@code max_tokens}
 * @param hashIds one id per leading block of {@code blockSize} tokens (the last may be partial):
 *     the same id is the same text in every request; empty when nothing is shared
 * @param model the model it went to, or null
 * @param labels its labels (empty when none)
 * @param sessionId the conversation it belongs to, or null for a request on its own
 * @param turn its turn in that conversation, or null (then the order of the lines)
 * @param requestId the id it had where the trace was captured, or null
 */
public record TraceRequest(
    long line,
    long offsetMs,
    int inputTokens,
    int outputTokens,
    long[] hashIds,
    int blockSize,
    String model,
    SortedMap<String, String> labels,
    String sessionId,
    Integer turn,
    String requestId) {}
