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
   * (present and within its {@link TokenEventBounds}), the fields its type requires, the fields its
   * type must not carry; the other bounds after.
   *
   * @param present the fields present, a bit {@code 1L << field} each ({@link TokenEventDecoder}'s
   *     field numbers)
   */
  static String problem(boolean object, EventType type, int v, long ts, long present) {
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
      missing = firstMissing(present, TokenEventDecoder.PRODUCER_ID, TokenEventDecoder.WATERMARK);
    } else if (type == EventType.ENGINE) {
      missing =
          firstMissing(
              present,
              TokenEventDecoder.MODEL,
              TokenEventDecoder.PRODUCER_ID,
              TokenEventDecoder.ENGINE);
    } else if (!has(present, TokenEventDecoder.REQUEST_ID)) {
      missing = "requestId";
    } else if (!has(present, TokenEventDecoder.MODEL)) {
      missing = "model";
    } else if (type == EventType.TOKEN) {
      missing = firstMissing(present, TokenEventDecoder.ELAPSED_NS, TokenEventDecoder.SEQ);
    } else if (type == EventType.END || type == EventType.ERROR) {
      missing = firstMissing(present, TokenEventDecoder.ELAPSED_NS);
      if (missing == null && type == EventType.ERROR) {
        missing = firstMissing(present, TokenEventDecoder.ERROR_CLASS);
      }
    }
    return missing != null ? "missing " + missing : misplaced(type, present);
  }

  /**
   * The fields of a request (its id, times, counts, outcome and flags): an engine event, which
   * belongs to no request, carries none of them.
   */
  private static final long REQUEST_FIELDS =
      bits(
          TokenEventDecoder.REQUEST_ID,
          TokenEventDecoder.ELAPSED_NS,
          TokenEventDecoder.SEQ,
          TokenEventDecoder.TOKENS,
          TokenEventDecoder.KIND,
          TokenEventDecoder.PROMPT_TOKENS,
          TokenEventDecoder.CACHED_TOKENS,
          TokenEventDecoder.COMPLETION_TOKENS,
          TokenEventDecoder.FINISH_REASON,
          TokenEventDecoder.ERROR_CLASS,
          TokenEventDecoder.HTTP_STATUS,
          TokenEventDecoder.MESSAGE,
          TokenEventDecoder.SCHEDULE_LAG_NS,
          TokenEventDecoder.MALFORMED_CHUNKS,
          TokenEventDecoder.COALESCED,
          TokenEventDecoder.WARMUP,
          TokenEventDecoder.CLIENT_LAG_US,
          TokenEventDecoder.PREFIX_HASHES,
          TokenEventDecoder.PREFIX_BLOCKS,
          TokenEventDecoder.ENGINE_TIMING);

  /**
   * A field this type of event must not carry: a request's field on an engine event, {@code
   * engineTiming} elsewhere than on an end event, {@code engine} elsewhere than on an engine event.
   */
  private static String misplaced(EventType type, long present) {
    if (type == EventType.ENGINE && (present & REQUEST_FIELDS) != 0) {
      String name =
          TokenEventDecoder.FIELD_NAMES[Long.numberOfTrailingZeros(present & REQUEST_FIELDS)];
      return name + " on an engine event (it belongs to no request)";
    }
    if (type != EventType.END && has(present, TokenEventDecoder.ENGINE_TIMING)) {
      return "engineTiming on " + article(type) + " event (only an end event carries it)";
    }
    if (type != EventType.ENGINE && has(present, TokenEventDecoder.ENGINE)) {
      return "engine on " + article(type) + " event (only an engine event carries it)";
    }
    return null;
  }

  private static String article(EventType type) {
    String wire = type.wire();
    return ("aeiou".indexOf(wire.charAt(0)) >= 0 ? "an " : "a ") + wire;
  }

  /** The name of the first of {@code fields} not present, or null. */
  private static String firstMissing(long present, int... fields) {
    for (int f : fields) {
      if (!has(present, f)) {
        return TokenEventDecoder.FIELD_NAMES[f];
      }
    }
    return null;
  }

  private static long bits(int... fields) {
    long bits = 0;
    for (int f : fields) {
      bits |= 1L << f;
    }
    return bits;
  }

  /**
   * The rule applied to a record a fast reader has read into {@code d}: {@code seen} has the bit
   * {@code 1L << field} of every field present ({@link TokenEventDecoder}'s field numbers). The
   * fast readers leave a record with a value outside its {@link TokenEventBounds} to the
   * data-binding decoder before they ask.
   */
  static String problem(DecodedEvent d, int v, long seen) {
    return problem(true, d.type, v, d.ts, seen);
  }

  private static boolean has(long seen, int field) {
    return (seen & (1L << field)) != 0;
  }

  /** The rule applied to a decoded event (null: not an object). */
  static String problem(TokenEvent e) {
    if (e == null) {
      return problem(false, null, 0, 0, 0);
    }
    String problem = problem(true, e.type(), e.v(), e.ts(), TokenEventBounds.present(e));
    return problem != null ? problem : TokenEventBounds.problem(e);
  }
}
