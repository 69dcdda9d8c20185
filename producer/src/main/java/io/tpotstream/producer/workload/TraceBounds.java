package io.tpotstream.producer.workload;

import io.tpotstream.common.event.TokenEventBounds;
import java.util.List;

/**
 * The bounds of every value a trace file gives, checked where a line is read ({@link
 * JsonLinesTraceReader}, {@link AzureCsvTraceReader}): each number's range, each text's most
 * characters, a line's most bytes. A value outside them stops the reading with the file, the line
 * and the field named (docs/producer.md, "Replaying a trace").
 */
public final class TraceBounds {
  /** The most bytes of one line before its LF: a Mooncake line is about 1 KB. */
  public static final int MAX_LINE_BYTES = 256 * 1024;

  /** The latest offset from the trace's start: a year and a day, in ms. */
  public static final long MAX_OFFSET_MS = 366L * 24 * 3600 * 1000;

  /** The most tokens of a prompt or an output (the synthetic lengths' bound). */
  public static final int MAX_TOKENS = LengthDistribution.MAX_TOKENS;

  /** The most hash ids on one line (8 M tokens in 512-token blocks). */
  public static final int MAX_HASH_IDS = 16_384;

  /** The largest block, in tokens. */
  public static final int MAX_BLOCK_SIZE = 65_536;

  /** Mooncake's block, in tokens: a line without {@code block_size} has it. */
  public static final int DEFAULT_BLOCK_SIZE = 512;

  /** The highest turn number of a session. */
  public static final int MAX_TURN = 100_000;

  /** The most characters of a {@code session_id} or a {@code request_id}. */
  public static final int MAX_ID_CHARS = 256;

  /** A whole number's range and why. */
  public record Range(String field, long min, long max, String reason) {}

  /** A text's most characters (code points) and why. */
  public record Length(String field, int maxChars, String reason) {}

  /** Every number a line may give, in the format's order. */
  public static final List<Range> RANGES =
      List.of(
          new Range("timestamp", 0, MAX_OFFSET_MS, "ms from the trace's start, a year at most"),
          new Range("input_length", 1, MAX_TOKENS, "tokens of the prompt"),
          new Range("output_length", 1, MAX_TOKENS, "tokens of the output, sent as max_tokens"),
          new Range("hash_ids", 0, Long.MAX_VALUE, "block ids, whole numbers from 0"),
          new Range("block_size", 1, MAX_BLOCK_SIZE, "tokens per block"),
          new Range("turn", 0, MAX_TURN, "a turn's number in its session"));

  /** Every text a line may give. */
  public static final List<Length> LENGTHS =
      List.of(
          new Length("model", TokenEventBounds.MAX_MODEL_CHARS, "as a token event's model"),
          new Length("session_id", MAX_ID_CHARS, "an id"),
          new Length("request_id", MAX_ID_CHARS, "an id"));

  private TraceBounds() {}

  /** The range of {@code field}. */
  static Range range(String field) {
    for (Range r : RANGES) {
      if (r.field().equals(field)) {
        return r;
      }
    }
    throw new IllegalArgumentException("no range for " + field);
  }

  /** The most characters of {@code field}. */
  static Length length(String field) {
    for (Length l : LENGTHS) {
      if (l.field().equals(field)) {
        return l;
      }
    }
    throw new IllegalArgumentException("no length for " + field);
  }

  /**
   * Why {@code value} of {@code field} is out of its range, or null when it is in it: {@code
   * input_length 0 is less than 1 (tokens of the prompt)}.
   */
  static String outOfRange(String field, long value) {
    return outOfRange(field, field, value);
  }

  /** As {@link #outOfRange(String, long)}, naming the field {@code shown} (a CSV column). */
  static String outOfRange(String field, String shown, long value) {
    Range r = range(field);
    if (value < r.min()) {
      return shown + " " + value + " is less than " + r.min() + " (" + r.reason() + ")";
    }
    if (value > r.max()) {
      return shown + " " + value + " is more than " + r.max() + " (" + r.reason() + ")";
    }
    return null;
  }

  /** Why {@code text} of {@code field} is too long or empty, or null. */
  static String badText(String field, String text, int maxChars) {
    if (text.isEmpty()) {
      return field + " is empty";
    }
    int chars = text.codePointCount(0, text.length());
    return chars > maxChars ? field + " is " + chars + " characters, more than " + maxChars : null;
  }
}
