package io.tpotstream.common.event;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads token events for the aggregator, offline {@code stats} and replay: one pass over the
 * record, no event object, the request id taken from the record's key when the event's own id
 * equals it, and the model and labels read only when {@link DecodedEvent#model()} or {@link
 * DecodedEvent#labels()} asks (when a request starts). The compact form producers write is read by
 * {@link CompactScanner} (a few byte comparisons per field); anything else (spaces, escapes, a
 * field it does not know, a record it rejects) by the reference codec, {@link
 * TokenEventCodec#decode}, whose verdict stands (so are engine events and end events with {@code
 * engineTiming}: objects the scanner does not read, in one record per scrape interval or per
 * request, never per token): the two accept and reject exactly the same records with the same
 * messages. A property test over generated and mutated records holds them to it, every field of
 * every type of event ({@code TokenEventDecoderTest}).
 *
 * <p>Not thread-safe: one per thread; the returned event is reused by the next call.
 */
public final class TokenEventDecoder {
  // the token event's fields, by position in docs/design.md's order (a bit each, to see repeats)
  static final int TYPE = 0;
  static final int V = 1;
  static final int TS = 2;
  static final int RUN_ID = 3;
  static final int REQUEST_ID = 4;
  static final int MODEL = 5;
  static final int LABELS = 6;
  static final int ELAPSED_NS = 7;
  static final int SEQ = 8;
  static final int TOKENS = 9;
  static final int KIND = 10;
  static final int PROMPT_TOKENS = 11;
  static final int CACHED_TOKENS = 12;
  static final int COMPLETION_TOKENS = 13;
  static final int FINISH_REASON = 14;
  static final int ERROR_CLASS = 15;
  static final int HTTP_STATUS = 16;
  static final int MESSAGE = 17;
  static final int SCHEDULE_LAG_NS = 18;
  static final int MALFORMED_CHUNKS = 19;
  static final int PRODUCER_ID = 20;
  static final int WATERMARK = 21;
  static final int FINAL = 22;
  static final int CLIENT_PAUSE_MAX_US = 23;
  static final int LOOP_LAG_MAX_US = 24;
  static final int COALESCED_CHUNKS = 25;
  static final int COALESCED = 26;
  static final int WARMUP = 27;
  static final int SOURCE = 28;
  static final int DROPPED_EVENTS = 29;
  static final int CLIENT_LAG_US = 30;
  static final int PREFIX_HASHES = 31;
  static final int PREFIX_BLOCKS = 32;
  static final int ENGINE_TIMING = 33;
  static final int ENGINE = 34;

  /**
   * The field names in the design's order (producers write them so), by field index: {@link
   * TokenEvent}'s order. Fields no statistic reads ({@code droppedEvents}, {@code message}, …) are
   * checked, not kept. A start event's {@code prefixHashes} (an array, one per request), an end
   * event's {@code engineTiming} and an engine event's {@code engine} (objects: one per request,
   * one per scrape interval) are left to data binding by the compact scanner.
   */
  static final String[] FIELD_NAMES = TokenEvent.fieldNames();

  private final DecodedEvent event = new DecodedEvent();

  private final CompactScanner scanner = new CompactScanner();

  /** Records the compact scanner read. */
  long scanned;

  /**
   * Decodes one record's value.
   *
   * @param key the record's key (the request id as the producer keys it), or null
   * @throws TokenEventFormatException when the value is not a valid v1 token event, with {@link
   *     TokenEventCodec#decode}'s message
   */
  public DecodedEvent decode(byte[] key, byte[] value) {
    event.clear();
    event.decoder = this;
    event.source = value;
    if (value != null && scanner.scan(key, value, event)) {
      scanned++;
      return event;
    }
    fill(TokenEventCodec.decode(value));
    if (key != null && Arrays.equals(key, event.requestKey)) {
      event.requestKey = key; // the record's key, as the scanner takes it: no copy kept
    }
    return event;
  }

  /**
   * The same view of an event already decoded (offline input, tests).
   *
   * @throws TokenEventFormatException when it breaks the token event rules
   */
  public DecodedEvent decode(TokenEvent value) {
    String problem = TokenEventRules.problem(value);
    if (problem != null) {
      throw new TokenEventFormatException("not a token event: " + problem + " in " + value, null);
    }
    event.clear();
    event.decoder = this;
    fill(value);
    return event;
  }

  private void fill(TokenEvent e) {
    DecodedEvent d = event;
    d.clear();
    d.decoder = this;
    d.type = e.type();
    d.ts = e.ts();
    if (e.type() == EventType.HEARTBEAT) {
      d.producerId = e.producerId(); // as the fast readers: kept for heartbeats only
    } else if (e.requestId() != null) {
      d.requestId = e.requestId();
      d.requestKey = e.requestId().getBytes(StandardCharsets.UTF_8);
    }
    d.elapsedNs = e.elapsedNs() == null ? 0 : e.elapsedNs();
    if (e.seq() != null) {
      d.hasSeq = true;
      d.seq = e.seq();
    }
    if (e.tokens() != null) {
      d.hasTokens = true;
      d.tokens = e.tokens();
    }
    if (e.scheduleLagNs() != null) {
      d.hasScheduleLag = true;
      d.scheduleLagNs = e.scheduleLagNs();
    }
    if (e.promptTokens() != null) {
      d.hasPromptTokens = true;
      d.promptTokens = e.promptTokens();
    }
    if (e.cachedTokens() != null) {
      d.hasCachedTokens = true;
      d.cachedTokens = e.cachedTokens();
    }
    if (e.completionTokens() != null) {
      d.hasCompletionTokens = true;
      d.completionTokens = e.completionTokens();
    }
    d.errorClass = ErrorClasses.fold(e.errorClass());
    d.watermark = e.watermark() == null ? 0 : e.watermark();
    d.isFinal = Boolean.TRUE.equals(e.isFinal());
    if (e.clientPauseMaxUs() != null) {
      d.hasClientPause = true;
      d.clientPauseMaxUs = e.clientPauseMaxUs();
    }
    if (e.loopLagMaxUs() != null) {
      d.hasLoopLag = true;
      d.loopLagMaxUs = e.loopLagMaxUs();
    }
    d.coalesced = e.arrivedCoalesced();
    d.clientLagUs = e.clientLagOrZero();
    d.warmup = e.inWarmup();
    d.model = e.model();
    d.labels = e.labels();
    d.seriesRead = true;
    d.engineTiming = e.engineTiming();
    d.engine = e.engine();
  }

  /**
   * Reads the model and labels of the event's record (a second, partial pass over what the compact
   * scanner read; a record read by data binding has them already).
   */
  void readSeries(DecodedEvent d) {
    d.seriesRead = true;
    if (d.source != null && (d.modelStart >= 0 || d.labelsStart >= 0)) {
      CompactScanner.readSeries(d);
    }
  }
}
