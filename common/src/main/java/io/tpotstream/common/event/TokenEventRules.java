package io.tpotstream.common.event;

/**
 * Which records are token events (docs/design.md, "Token event"): one rule for every reader of
 * them, the data-binding {@link TokenEventCodec} and the streaming {@link TokenEventDecoder} alike,
 * so that the aggregator's dead letters and the problems offline {@code stats} reports are the same
 * records.
 */
final class TokenEventRules {
  /**
   * The fields that count something or measure a wait ({@link TokenEventDecoder}'s field numbers, a
   * bit each): never negative. A negative count would become negative output tokens or rates in the
   * summaries. Not {@code scheduleLagNs} (a request started a little before it was due is early,
   * not malformed), {@code watermark} or {@code httpStatus}, which no count depends on.
   */
  static final long NEVER_NEGATIVE =
      bits(
          TokenEventDecoder.ELAPSED_NS,
          TokenEventDecoder.SEQ,
          TokenEventDecoder.TOKENS,
          TokenEventDecoder.PROMPT_TOKENS,
          TokenEventDecoder.COMPLETION_TOKENS,
          TokenEventDecoder.MALFORMED_CHUNKS,
          TokenEventDecoder.CLIENT_PAUSE_MAX_US,
          TokenEventDecoder.LOOP_LAG_MAX_US,
          TokenEventDecoder.COALESCED_CHUNKS,
          TokenEventDecoder.DROPPED_EVENTS,
          TokenEventDecoder.CLIENT_LAG_US);

  private TokenEventRules() {}

  private static long bits(int... fields) {
    long bits = 0;
    for (int field : fields) {
      bits |= 1L << field;
    }
    return bits;
  }

  /**
   * What makes these fields not a valid v1 token event (the words after "not a token event: "), or
   * null when they are one. Checked in this order: an object, its type, its version, {@code ts},
   * then the fields its type requires, then the counts that must not be negative.
   */
  static String problem(
      boolean object,
      EventType type,
      int v,
      long ts,
      boolean requestId,
      boolean model,
      boolean producerId,
      boolean watermark,
      boolean hasElapsedNs,
      long elapsedNs,
      boolean hasSeq,
      int seq,
      boolean hasTokens,
      int tokens,
      boolean errorClass) {
    String missing = null;
    if (!object) {
      missing = "an object";
    } else if (type == null) {
      missing = "type";
    } else if (v != TokenEvent.VERSION) {
      return "version v="
          + v
          + " is not "
          + TokenEvent.VERSION
          + " (written by another version of the producer: check that both ends run the same"
          + " tpot)";
    } else if (ts <= 0) {
      missing = "ts";
    } else if (type == EventType.HEARTBEAT) {
      if (!producerId) {
        missing = "producerId";
      } else if (!watermark) {
        missing = "watermark";
      }
    } else if (!requestId) {
      missing = "requestId";
    } else if (!model) {
      missing = "model";
    } else if (type == EventType.TOKEN && (!hasElapsedNs || !hasSeq)) {
      missing = !hasElapsedNs ? "elapsedNs" : "seq";
    } else if ((type == EventType.END || type == EventType.ERROR) && !hasElapsedNs) {
      missing = "elapsedNs";
    } else if (type == EventType.ERROR && !errorClass) {
      missing = "errorClass";
    }
    if (missing != null) {
      return "missing " + missing;
    }
    if (hasElapsedNs && elapsedNs < 0) {
      return "negative elapsedNs " + elapsedNs;
    }
    if (hasSeq && seq < 0) {
      return "negative seq " + seq;
    }
    if (hasTokens && tokens < 0) {
      return "negative tokens " + tokens;
    }
    return null;
  }

  /**
   * The rule applied to a record a fast reader has read into {@code d}: {@code seen} has the bit
   * {@code 1L << field} of every field present ({@link TokenEventDecoder}'s field numbers). The
   * fast readers leave a record with a negative value in a {@link #NEVER_NEGATIVE} field to the
   * data-binding decoder before they ask.
   */
  static String problem(DecodedEvent d, int v, boolean requestId, long seen) {
    return problem(
        true,
        d.type,
        v,
        d.ts,
        requestId,
        has(seen, TokenEventDecoder.MODEL),
        has(seen, TokenEventDecoder.PRODUCER_ID),
        has(seen, TokenEventDecoder.WATERMARK),
        has(seen, TokenEventDecoder.ELAPSED_NS),
        d.elapsedNs,
        d.hasSeq,
        d.seq,
        d.hasTokens,
        d.tokens,
        has(seen, TokenEventDecoder.ERROR_CLASS));
  }

  private static boolean has(long seen, int field) {
    return (seen & (1L << field)) != 0;
  }

  /** The rule applied to a decoded event (null: not an object). */
  static String problem(TokenEvent e) {
    if (e == null) {
      return problem(
          false, null, 0, 0, false, false, false, false, false, 0, false, 0, false, 0, false);
    }
    String problem = fieldsProblem(e);
    return problem != null ? problem : negativeCount(e);
  }

  /**
   * The counts of {@link #NEVER_NEGATIVE} the common rule does not check, in the design's order.
   */
  private static String negativeCount(TokenEvent e) {
    String name = null;
    long value = 0;
    Number[] counts = {
      e.promptTokens(),
      e.completionTokens(),
      e.malformedChunks(),
      e.clientPauseMaxUs(),
      e.loopLagMaxUs(),
      e.coalescedChunks(),
      e.droppedEvents(),
      e.clientLagUs()
    };
    String[] names = {
      "promptTokens",
      "completionTokens",
      "malformedChunks",
      "clientPauseMaxUs",
      "loopLagMaxUs",
      "coalescedChunks",
      "droppedEvents",
      "clientLagUs"
    };
    for (int i = 0; i < counts.length && name == null; i++) {
      if (counts[i] != null && counts[i].longValue() < 0) {
        name = names[i];
        value = counts[i].longValue();
      }
    }
    return name == null ? null : "negative " + name + " " + value;
  }

  private static String fieldsProblem(TokenEvent e) {
    return problem(
        true,
        e.type(),
        e.v(),
        e.ts(),
        e.requestId() != null,
        e.model() != null,
        e.producerId() != null,
        e.watermark() != null,
        e.elapsedNs() != null,
        e.elapsedNs() == null ? 0 : e.elapsedNs(),
        e.seq() != null,
        e.seq() == null ? 0 : e.seq(),
        e.tokens() != null,
        e.tokens() == null ? 0 : e.tokens(),
        e.errorClass() != null);
  }
}
