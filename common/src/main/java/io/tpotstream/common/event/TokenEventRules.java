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
   * null when they are one. Checked in this order: an object, its type, its version, {@code ts}
   * (present and within its {@link TokenEventBounds}), then the fields its type requires; the other
   * bounds after.
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
      boolean hasSeq,
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
    } else if (ts == 0) {
      missing = "ts"; // (data binding reads an absent ts as 0)
    } else if (TokenEventBounds.rangeProblem(TokenEventDecoder.TS, ts) != null) {
      return TokenEventBounds.rangeProblem(TokenEventDecoder.TS, ts);
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
    return missing == null ? null : "missing " + missing;
  }

  /**
   * The rule applied to a record a fast reader has read into {@code d}: {@code seen} has the bit
   * {@code 1L << field} of every field present ({@link TokenEventDecoder}'s field numbers). The
   * fast readers leave a record with a value outside its {@link TokenEventBounds} to the
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
        d.hasSeq,
        has(seen, TokenEventDecoder.ERROR_CLASS));
  }

  private static boolean has(long seen, int field) {
    return (seen & (1L << field)) != 0;
  }

  /** The rule applied to a decoded event (null: not an object). */
  static String problem(TokenEvent e) {
    if (e == null) {
      return problem(false, null, 0, 0, false, false, false, false, false, false, false);
    }
    String problem = fieldsProblem(e);
    return problem != null ? problem : TokenEventBounds.problem(e);
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
        e.seq() != null,
        e.errorClass() != null);
  }
}
