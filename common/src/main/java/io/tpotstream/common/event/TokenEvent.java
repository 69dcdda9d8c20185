package io.tpotstream.common.event;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One token event, v1 (docs/design.md, "Token event"). Absent fields are null and omitted from the
 * JSON. {@code ts} is epoch ms from the producer's anchored clock; {@code elapsedNs} is monotonic
 * ns since the request start.
 */
@JsonPropertyOrder({
  "type",
  "v",
  "ts",
  "runId",
  "requestId",
  "model",
  "labels",
  "elapsedNs",
  "seq",
  "tokens",
  "kind",
  "promptTokens",
  "completionTokens",
  "finishReason",
  "errorClass",
  "httpStatus",
  "message",
  "scheduleLagNs",
  "malformedChunks",
  "producerId",
  "watermark",
  "final",
  "clientPauseMaxUs",
  "loopLagMaxUs",
  "coalescedChunks",
  "coalesced",
  "warmup",
  "source",
  "droppedEvents"
})
public record TokenEvent(
    EventType type,
    int v,
    long ts,
    String runId,
    String requestId,
    String model,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) SortedMap<String, String> labels,
    Long elapsedNs,
    Integer seq,
    Integer tokens,
    TokenKind kind,
    Integer promptTokens,
    Integer completionTokens,
    String finishReason,
    String errorClass,
    Integer httpStatus,
    String message,
    Long scheduleLagNs,
    Integer malformedChunks,
    String producerId,
    Long watermark,
    @JsonProperty("final") Boolean isFinal,
    Long clientPauseMaxUs,
    Long loopLagMaxUs,
    Long coalescedChunks,
    Boolean coalesced,
    Boolean warmup,
    String source,
    Long droppedEvents) {

  /** The event format version this code writes. */
  public static final int VERSION = 1;

  /** The JSON field names in the order producers write them (the {@code @JsonPropertyOrder}). */
  static String[] fieldNames() {
    return TokenEvent.class.getAnnotation(JsonPropertyOrder.class).value();
  }

  public TokenEvent {
    labels = labels == null ? null : new TreeMap<>(labels);
  }

  /** A request start; {@code scheduleLagNs} is null in closed-loop runs. */
  public static TokenEvent start(
      long ts,
      String runId,
      String requestId,
      String model,
      Map<String, String> labels,
      Long scheduleLagNs,
      String producerId) {
    return new TokenEvent(
        EventType.START,
        VERSION,
        ts,
        runId,
        requestId,
        model,
        sorted(labels),
        0L,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        scheduleLagNs,
        null,
        producerId,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * One output-token chunk arrival: chunk {@code seq} (0-based) carrying {@code tokens} tokens
   * (null: the API did not say, counted as one).
   */
  public static TokenEvent token(
      long ts,
      String runId,
      String requestId,
      String model,
      Map<String, String> labels,
      long elapsedNs,
      int seq,
      Integer tokens,
      TokenKind kind,
      String producerId) {
    return new TokenEvent(
        EventType.TOKEN,
        VERSION,
        ts,
        runId,
        requestId,
        model,
        sorted(labels),
        elapsedNs,
        seq,
        tokens,
        kind,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        producerId,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /** The end of a complete stream, with the usage the API reported (null when it reported none). */
  public static TokenEvent end(
      long ts,
      String runId,
      String requestId,
      String model,
      Map<String, String> labels,
      long elapsedNs,
      int chunks,
      Integer promptTokens,
      Integer completionTokens,
      String finishReason,
      Integer malformedChunks,
      String producerId) {
    return new TokenEvent(
        EventType.END,
        VERSION,
        ts,
        runId,
        requestId,
        model,
        sorted(labels),
        elapsedNs,
        chunks,
        null,
        null,
        promptTokens,
        completionTokens,
        finishReason,
        null,
        null,
        null,
        null,
        malformedChunks,
        producerId,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * A failed request: its error class, the HTTP status if there was one, and a redacted message.
   */
  public static TokenEvent error(
      long ts,
      String runId,
      String requestId,
      String model,
      Map<String, String> labels,
      long elapsedNs,
      int chunks,
      String errorClass,
      Integer httpStatus,
      String message,
      Integer malformedChunks,
      String producerId) {
    return new TokenEvent(
        EventType.ERROR,
        VERSION,
        ts,
        runId,
        requestId,
        model,
        sorted(labels),
        elapsedNs,
        chunks,
        null,
        null,
        null,
        null,
        null,
        errorClass,
        httpStatus,
        message,
        null,
        malformedChunks,
        producerId,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  /**
   * A watermark heartbeat: this producer sends no event with {@code ts} below {@code watermark}.
   */
  public static TokenEvent heartbeat(
      long ts,
      String runId,
      String producerId,
      long watermark,
      boolean isFinal,
      Long clientPauseMaxUs) {
    return heartbeat(ts, runId, producerId, watermark, isFinal, clientPauseMaxUs, null, null);
  }

  /**
   * A heartbeat with the producer's own health over the last second: its worst pause and worst
   * event-loop lag (µs) and the chunks that arrived in the same socket read as the one before.
   */
  public static TokenEvent heartbeat(
      long ts,
      String runId,
      String producerId,
      long watermark,
      boolean isFinal,
      Long clientPauseMaxUs,
      Long loopLagMaxUs,
      Long coalescedChunks) {
    return new TokenEvent(
        EventType.HEARTBEAT,
        VERSION,
        ts,
        runId,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        producerId,
        watermark,
        isFinal ? true : null,
        clientPauseMaxUs,
        loopLagMaxUs,
        coalescedChunks,
        null,
        null,
        null,
        null);
  }

  /** This event marked as part of a warm-up request (left out of every statistic). */
  public TokenEvent asWarmup() {
    return withFlags(coalesced, true, source);
  }

  /** This token event marked as having arrived in the same socket read as the chunk before it. */
  public TokenEvent asCoalesced() {
    return withFlags(true, warmup, source);
  }

  /** This event with its {@code source} ({@code producer} or {@code proxy}). */
  public TokenEvent withSource(String source) {
    return withFlags(coalesced, warmup, source);
  }

  /** True when this event belongs to a warm-up request. */
  public boolean inWarmup() {
    return Boolean.TRUE.equals(warmup);
  }

  /** True when this token chunk came out of the same socket read as the one before it. */
  public boolean arrivedCoalesced() {
    return Boolean.TRUE.equals(coalesced);
  }

  /** This event with another {@code ts} (epoch ms). */
  public TokenEvent withTs(long ts) {
    return copy(ts, coalesced, warmup, source, droppedEvents);
  }

  /**
   * This heartbeat with the events its producer dropped so far (a proxy drops rather than wait for
   * Kafka).
   */
  public TokenEvent withDroppedEvents(long dropped) {
    return copy(ts, coalesced, warmup, source, dropped);
  }

  private TokenEvent withFlags(Boolean coalesced, Boolean warmup, String source) {
    return copy(ts, coalesced, warmup, source, droppedEvents);
  }

  private TokenEvent copy(
      long ts, Boolean coalesced, Boolean warmup, String source, Long droppedEvents) {
    return new TokenEvent(
        type,
        v,
        ts,
        runId,
        requestId,
        model,
        labels,
        elapsedNs,
        seq,
        tokens,
        kind,
        promptTokens,
        completionTokens,
        finishReason,
        errorClass,
        httpStatus,
        message,
        scheduleLagNs,
        malformedChunks,
        producerId,
        watermark,
        isFinal,
        clientPauseMaxUs,
        loopLagMaxUs,
        coalescedChunks,
        Boolean.TRUE.equals(coalesced) ? true : null,
        Boolean.TRUE.equals(warmup) ? true : null,
        source,
        droppedEvents);
  }

  /** True for a heartbeat that says its producer has stopped for good. */
  public boolean finalHeartbeat() {
    return type == EventType.HEARTBEAT && Boolean.TRUE.equals(isFinal);
  }

  /** Tokens this chunk carried (1 unless the API said otherwise). */
  public int tokensOrOne() {
    return tokens == null ? 1 : tokens;
  }

  private static SortedMap<String, String> sorted(Map<String, String> labels) {
    return labels == null || labels.isEmpty() ? null : new TreeMap<>(labels);
  }
}
