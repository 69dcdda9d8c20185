package io.tpotstream.common.event;

/**
 * Which records are token events (docs/design.md, "Token event"): one rule for every reader of
 * them, the data-binding {@link TokenEventCodec} and the streaming {@link TokenEventDecoder} alike,
 * so that the aggregator's dead letters and the problems offline {@code stats} reports are the same
 * records.
 */
final class TokenEventRules {
  private TokenEventRules() {}

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
   * {@code 1L << field} of every field present ({@link TokenEventDecoder}'s field numbers).
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
