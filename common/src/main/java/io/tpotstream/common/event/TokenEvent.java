package io.tpotstream.common.event;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineTiming;
import java.util.List;
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
  "cachedTokens",
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
  "droppedEvents",
  "clientLagUs",
  "prefixHashes",
  "prefixBlocks",
  "engineTiming",
  "engine"
})
public record TokenEvent(
    EventType type,
    int v,
    long ts,
    String runId,
    String requestId,
    String model,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonSetter(contentNulls = Nulls.FAIL)
        SortedMap<String, String> labels,
    Long elapsedNs,
    Integer seq,
    Integer tokens,
    TokenKind kind,
    Integer promptTokens,
    Integer cachedTokens,
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
    Long droppedEvents,
    Long clientLagUs,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonSetter(contentNulls = Nulls.FAIL)
        List<Long> prefixHashes,
    Integer prefixBlocks,
    EngineTiming engineTiming,
    EngineSample engine) {

  /** The event format version this code writes. */
  public static final int VERSION = 1;

  /** The JSON field names in the order producers write them (the {@code @JsonPropertyOrder}). */
  static String[] fieldNames() {
    return TokenEvent.class.getAnnotation(JsonPropertyOrder.class).value();
  }

  public TokenEvent {
    labels = labels == null ? null : new TreeMap<>(labels);
    prefixHashes = prefixHashes == null ? null : List.copyOf(prefixHashes);
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
    Draft start = Draft.request(EventType.START, ts, runId, requestId, model, labels, 0L);
    start.scheduleLagNs = scheduleLagNs;
    start.producerId = producerId;
    return start.build();
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
    Draft token = Draft.request(EventType.TOKEN, ts, runId, requestId, model, labels, elapsedNs);
    token.seq = seq;
    token.tokens = tokens;
    token.kind = kind;
    token.producerId = producerId;
    return token.build();
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
    Draft end = Draft.request(EventType.END, ts, runId, requestId, model, labels, elapsedNs);
    end.promptTokens = promptTokens;
    end.completionTokens = completionTokens;
    end.finishReason = TokenEventBounds.fit(finishReason, TokenEventBounds.MAX_FINISH_REASON_CHARS);
    return end.finished(chunks, malformedChunks, producerId);
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
    Draft error = Draft.request(EventType.ERROR, ts, runId, requestId, model, labels, elapsedNs);
    error.errorClass = errorClass;
    error.httpStatus = httpStatus;
    error.message = TokenEventBounds.fit(message, TokenEventBounds.MAX_MESSAGE_CHARS);
    return error.finished(chunks, malformedChunks, producerId);
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
    Draft heartbeat = new Draft(EventType.HEARTBEAT, ts, runId);
    heartbeat.producerId = producerId;
    heartbeat.watermark = watermark;
    heartbeat.isFinal = isFinal ? true : null;
    heartbeat.clientPauseMaxUs = clientPauseMaxUs;
    heartbeat.loopLagMaxUs = loopLagMaxUs;
    heartbeat.coalescedChunks = coalescedChunks;
    return heartbeat.build();
  }

  /**
   * One scrape interval of an engine's metrics endpoint for {@code model} (and the producer's
   * labels): its deltas and gauges, sent by producer {@code producerId} at {@code ts}, the
   * interval's end.
   */
  public static TokenEvent engine(
      long ts,
      String runId,
      String model,
      Map<String, String> labels,
      String producerId,
      EngineSample engine) {
    Draft draft = new Draft(EventType.ENGINE, ts, runId);
    draft.model = model;
    draft.labels = labels == null || labels.isEmpty() ? null : new TreeMap<>(labels);
    draft.producerId = producerId;
    draft.engine = engine;
    return draft.build();
  }

  /**
   * This end event with what the engine said of the request in its response ({@link EngineTiming};
   * null: it said nothing).
   */
  public TokenEvent withEngineTiming(EngineTiming timing) {
    Draft copy = new Draft(this);
    copy.engineTiming = timing;
    return copy.build();
  }

  /** This event marked as part of a warm-up request (left out of every statistic). */
  public TokenEvent asWarmup() {
    return withFlags(coalesced, true, source);
  }

  /** This token event marked as having arrived in the same socket read as the chunk before it. */
  public TokenEvent asCoalesced() {
    return withFlags(true, warmup, source);
  }

  /**
   * This token event with the client's own lag within its gap (µs): how long the producer's event
   * loop ran more than 1 ms late between the chunk before and this one (0: left out).
   */
  public TokenEvent withClientLag(long micros) {
    Draft copy = new Draft(this);
    copy.clientLagUs = micros > 0 ? micros : null;
    return copy.build();
  }

  /**
   * This end event with the prompt tokens the server reported as read from its prefix cache
   * (OpenAI's {@code usage.prompt_tokens_details.cached_tokens}, Anthropic's {@code
   * cache_read_input_tokens}; null: not reported).
   */
  public TokenEvent withCachedTokens(Integer cachedTokens) {
    Draft copy = new Draft(this);
    copy.cachedTokens = cachedTokens;
    return copy.build();
  }

  /** The client's own lag within this chunk's gap in µs (0 when none). */
  public long clientLagOrZero() {
    return clientLagUs == null ? 0 : clientLagUs;
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
    Draft copy = new Draft(this);
    copy.ts = ts;
    return copy.build();
  }

  /**
   * This heartbeat with the events its producer dropped so far (a proxy drops rather than wait for
   * Kafka).
   */
  public TokenEvent withDroppedEvents(long dropped) {
    Draft copy = new Draft(this);
    copy.droppedEvents = dropped;
    return copy.build();
  }

  /**
   * This start event with the keyed hashes of its prompt's leading blocks ({@code tpot proxy
   * --capture-prefix-hashes}: at most {@link TokenEventBounds#MAX_PREFIX_HASHES}, each chained to
   * the one before, so an equal hash means an equal prompt up to the end of that block) and the
   * prompt's number of blocks, more than the hashes when they were cut.
   */
  public TokenEvent withPrefix(List<Long> hashes, int blocks) {
    Draft copy = new Draft(this);
    copy.prefixHashes = hashes;
    copy.prefixBlocks = blocks;
    return copy.build();
  }

  /** This event with an unknown {@code errorClass} read as {@link ErrorClasses#OTHER}. */
  TokenEvent withKnownErrorClass() {
    String known = ErrorClasses.fold(errorClass);
    if (java.util.Objects.equals(known, errorClass)) {
      return this;
    }
    Draft copy = new Draft(this);
    copy.errorClass = known;
    return copy.build();
  }

  private TokenEvent withFlags(Boolean coalesced, Boolean warmup, String source) {
    Draft copy = new Draft(this);
    copy.coalesced = coalesced;
    copy.warmup = warmup;
    copy.source = source;
    return copy.build();
  }

  /** True for a heartbeat that says its producer has stopped for good. */
  public boolean finalHeartbeat() {
    return type == EventType.HEARTBEAT && Boolean.TRUE.equals(isFinal);
  }

  /** Tokens this chunk carried (1 unless the API said otherwise). */
  public int tokensOrOne() {
    return tokens == null ? 1 : tokens;
  }

  /**
   * An event being made: the one place that calls the 35-field constructor. Each factory sets only
   * its own fields; every other field stays null and is left out of the JSON.
   */
  private static final class Draft {
    private final EventType type;
    private final int v;
    private long ts;
    private final String runId;
    private String requestId;
    private String model;
    private SortedMap<String, String> labels;
    private Long elapsedNs;
    private Integer seq;
    private Integer tokens;
    private TokenKind kind;
    private Integer promptTokens;
    private Integer cachedTokens;
    private Integer completionTokens;
    private String finishReason;
    private String errorClass;
    private Integer httpStatus;
    private String message;
    private Long scheduleLagNs;
    private Integer malformedChunks;
    private String producerId;
    private Long watermark;
    private Boolean isFinal;
    private Long clientPauseMaxUs;
    private Long loopLagMaxUs;
    private Long coalescedChunks;
    private Boolean coalesced;
    private Boolean warmup;
    private String source;
    private Long droppedEvents;
    private Long clientLagUs;
    private List<Long> prefixHashes;
    private Integer prefixBlocks;
    private EngineTiming engineTiming;
    private EngineSample engine;

    /** A new event of this version: only its type, time and run. */
    Draft(EventType type, long ts, String runId) {
      this.type = type;
      this.v = VERSION;
      this.ts = ts;
      this.runId = runId;
    }

    /** A copy of {@code event}, field for field, to change a few of them. */
    Draft(TokenEvent event) {
      type = event.type;
      v = event.v;
      ts = event.ts;
      runId = event.runId;
      requestId = event.requestId;
      model = event.model;
      labels = event.labels;
      elapsedNs = event.elapsedNs;
      seq = event.seq;
      tokens = event.tokens;
      kind = event.kind;
      promptTokens = event.promptTokens;
      cachedTokens = event.cachedTokens;
      completionTokens = event.completionTokens;
      finishReason = event.finishReason;
      errorClass = event.errorClass;
      httpStatus = event.httpStatus;
      message = event.message;
      scheduleLagNs = event.scheduleLagNs;
      malformedChunks = event.malformedChunks;
      producerId = event.producerId;
      watermark = event.watermark;
      isFinal = event.isFinal;
      clientPauseMaxUs = event.clientPauseMaxUs;
      loopLagMaxUs = event.loopLagMaxUs;
      coalescedChunks = event.coalescedChunks;
      coalesced = event.coalesced;
      warmup = event.warmup;
      source = event.source;
      droppedEvents = event.droppedEvents;
      clientLagUs = event.clientLagUs;
      prefixHashes = event.prefixHashes;
      prefixBlocks = event.prefixBlocks;
      engineTiming = event.engineTiming;
      engine = event.engine;
    }

    /** An event of one request, {@code elapsedNs} after its start (empty labels become none). */
    static Draft request(
        EventType type,
        long ts,
        String runId,
        String requestId,
        String model,
        Map<String, String> labels,
        long elapsedNs) {
      Draft request = new Draft(type, ts, runId);
      request.requestId = requestId;
      request.model = model;
      request.labels = labels == null || labels.isEmpty() ? null : new TreeMap<>(labels);
      request.elapsedNs = elapsedNs;
      return request;
    }

    /** The last event of a request: its chunk count, malformed chunks and producer. */
    TokenEvent finished(int chunks, Integer malformedChunks, String producerId) {
      this.seq = chunks;
      this.malformedChunks = malformedChunks;
      this.producerId = producerId;
      return build();
    }

    private static Boolean trueOrNull(Boolean flag) {
      return Boolean.TRUE.equals(flag) ? true : null;
    }

    /** The event; a flag that is not true is left out (null), as the format writes flags. */
    TokenEvent build() {
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
          cachedTokens,
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
          trueOrNull(coalesced),
          trueOrNull(warmup),
          source,
          droppedEvents,
          clientLagUs,
          prefixHashes,
          prefixBlocks,
          engineTiming,
          engine);
    }
  }
}
