package io.tpotstream.common.request;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One request as {@code --requests-out} writes it (one JSON line each), from the producer live or
 * from {@code tpot stats} on an export; both build it with {@link RequestTrace}, so the numbers are
 * the same. Latencies in ms with three decimals (integer µs); a field is omitted when the request
 * has no such value (no token: no TTFT; fewer than two chunks: no gaps, no request TPOT).
 *
 * @param start the request start, ISO-8601 UTC (the {@code start} event's {@code ts})
 * @param outcome {@code completed}, {@code failed} or {@code abandoned} (no end seen)
 * @param errorClass the error class of a failed request
 * @param message what a failed request's error said: where and why, and what to check (its error
 *     event's {@code message}, at most {@link
 *     io.tpotstream.common.event.TokenEventBounds#MAX_MESSAGE_CHARS} characters)
 * @param outputTokens reported completion tokens when the API gave usage, else tokens in chunks
 * @param promptTokens the prompt tokens the API reported (cached ones included), when it did
 * @param cachedTokens of those, the ones it reported as read from its prefix cache, when it did
 * @param gaps TPOT samples of this request (a chunk of k tokens gives k)
 * @param gapP50Ms the median of its own gaps (TPOT samples), HdrHistogram's value as everywhere
 * @param scheduleLagMs open loop: how late it was sent
 * @param good whether it met every {@code --goodput} limit (only when limits were given)
 * @param askedTokens the output length a replayed trace asked for (its {@code output_length}); only
 *     the producer knows it, so {@code tpot stats} leaves it out
 * @param endedShort with {@code askedTokens}, on a completed request: whether it ended with fewer
 *     output tokens than asked
 * @param engineTtftMs the engine's own time to first token, when it said (vLLM's per-request
 *     metrics, the end event's {@code engineTiming})
 * @param engineMeanItlMs the engine's own mean inter-token latency, when it said
 * @param engineQueueMs how long the engine queued the request, when it said
 * @param ttftOutsideMs {@code ttftMs} minus {@code engineTtftMs}: the part of the TTFT spent
 *     outside the engine (network, proxies, the client), when both are known
 * @param meanItlOutsideMs the mean of this request's own gaps (TPOT samples) minus {@code
 *     engineMeanItlMs}, when both are known
 */
@JsonPropertyOrder({
  "requestId",
  "runId",
  "model",
  "labels",
  "start",
  "startMs",
  "outcome",
  "errorClass",
  "message",
  "ttftMs",
  "e2eMs",
  "outputTokens",
  "promptTokens",
  "cachedTokens",
  "requestTpotMs",
  "gaps",
  "gapP50Ms",
  "gapP99Ms",
  "gapMaxMs",
  "scheduleLagMs",
  "good",
  "askedTokens",
  "endedShort",
  "engineTtftMs",
  "engineMeanItlMs",
  "engineQueueMs",
  "ttftOutsideMs",
  "meanItlOutsideMs"
})
public record RequestRecord(
    String requestId,
    String runId,
    String model,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) SortedMap<String, String> labels,
    String start,
    Long startMs,
    String outcome,
    String errorClass,
    String message,
    BigDecimal ttftMs,
    BigDecimal e2eMs,
    long outputTokens,
    Integer promptTokens,
    Integer cachedTokens,
    BigDecimal requestTpotMs,
    long gaps,
    BigDecimal gapP50Ms,
    BigDecimal gapP99Ms,
    BigDecimal gapMaxMs,
    BigDecimal scheduleLagMs,
    Boolean good,
    Integer askedTokens,
    Boolean endedShort,
    BigDecimal engineTtftMs,
    BigDecimal engineMeanItlMs,
    BigDecimal engineQueueMs,
    BigDecimal ttftOutsideMs,
    BigDecimal meanItlOutsideMs) {

  public static final String COMPLETED = "completed";
  public static final String FAILED = "failed";
  public static final String ABANDONED = "abandoned";

  public RequestRecord {
    labels = labels == null ? new TreeMap<>() : new TreeMap<>(labels);
  }
}
