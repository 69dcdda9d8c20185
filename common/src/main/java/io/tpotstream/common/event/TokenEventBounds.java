package io.tpotstream.common.event;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The bounds of every token-event field, declared once (as Kafka's {@code ConfigDef} declares a
 * setting): each integer field's closed range, each text field's most characters, and the labels'
 * size, each with its reason. docs/schemas/token-event.v1.schema.json writes the same numbers
 * ({@code minimum}, {@code maximum}, {@code maxLength}, {@code maxProperties}) and {@code
 * TokenEventBoundsTest} holds the two equal. The fields inside an engine event's {@code engine} and
 * an end event's {@code engineTiming} have theirs in {@link EngineBounds}, declared the same way.
 * Both decoders enforce them through {@link TokenEventRules}: a record outside is a dead letter
 * naming the field, its value and the bound.
 *
 * <p>Bounded values keep the arithmetic downstream exact: a difference of two {@code elapsedNs} or
 * {@code ts} values, a sum of a request's gaps or a window's tokens (4,096 a chunk) stays far
 * inside a long, and {@code ts} is a time the window arithmetic can round and add a window to.
 * These are static bounds; the aggregator bounds {@code ts} by the broker's time plus the clock
 * skew it allows, and by its lag, itself.
 */
public final class TokenEventBounds {
  /** 2000-01-01T00:00:00Z in epoch ms: no producer's clock is set before it. */
  public static final long TS_MIN_MS = 946_684_800_000L;

  /** 3000-01-01T00:00:00Z in epoch ms: the static ceiling (the aggregator's is much nearer). */
  public static final long TS_MAX_MS = 32_503_680_000_000L;

  /** A week in ns: longer than any request a producer waits for. */
  static final long WEEK_NS = 604_800_000_000_000L;

  /** An hour in µs: the range of the producer's pause and lag histograms. */
  static final long HOUR_US = 3_600_000_000L;

  /** The most labels one event carries. */
  public static final int MAX_LABELS = 16;

  /** An end event's finish reason, at most (a server's word: cut to fit). */
  public static final int MAX_FINISH_REASON_CHARS = 64;

  /** A model name, at most. */
  public static final int MAX_MODEL_CHARS = 256;

  /** An error event's message, at most (what a server said can be longer: it is cut to fit). */
  public static final int MAX_MESSAGE_CHARS = 2_048;

  /** The most characters of a label's name (a Prometheus label name, a column name). */
  public static final int MAX_LABEL_NAME_CHARS = 64;

  /** The most characters of a label's value. */
  public static final int MAX_LABEL_VALUE_CHARS = 256;

  /**
   * The most prefix hashes a start event carries: 1,024 blocks of 2,048 bytes, a prompt of 2 MB
   * (about half a million tokens), 20 KB of JSON at most.
   */
  public static final int MAX_PREFIX_HASHES = 1_024;

  /** An integer field's closed range {@code [min, max]}, and why. */
  public record Range(String field, long min, long max, String reason) {}

  /**
   * A text field's most characters (Unicode code points, as JSON Schema's {@code maxLength} counts
   * them), and why.
   */
  public record Length(String field, int maxChars, String reason) {}

  /** Every integer field but {@code v} (a constant), in the design's order. */
  public static final List<Range> RANGES =
      List.of(
          new Range("ts", TS_MIN_MS, TS_MAX_MS, "epoch ms from 2000 to the year 3000"),
          new Range("elapsedNs", 0, WEEK_NS, "a request lasts less than a week"),
          new Range("seq", 0, Integer.MAX_VALUE, "a chunk index, an int"),
          new Range(
              "tokens", 0, 4_096, "one chunk carries no more; past that it would weigh a window"),
          new Range("promptTokens", 0, 100_000_000, "ten times the largest context window"),
          new Range("cachedTokens", 0, 100_000_000, "a part of the prompt tokens"),
          new Range("completionTokens", 0, 100_000_000, "ten times the largest context window"),
          new Range("httpStatus", 100, 599, "an HTTP status code"),
          new Range("scheduleLagNs", -WEEK_NS, WEEK_NS, "an open loop is less than a week late"),
          new Range("malformedChunks", 0, Integer.MAX_VALUE, "a count of chunks, an int"),
          new Range("watermark", TS_MIN_MS, TS_MAX_MS, "epoch ms, as ts"),
          new Range("clientPauseMaxUs", 0, HOUR_US, "the pause histogram's range, an hour"),
          new Range("loopLagMaxUs", 0, HOUR_US, "the lag histogram's range, an hour"),
          new Range("coalescedChunks", 0, Integer.MAX_VALUE, "chunks in one heartbeat's second"),
          new Range(
              "droppedEvents",
              0,
              9_007_199_254_740_991L,
              "a proxy's total: 2^53 - 1, the largest integer every JSON reader holds exactly"),
          new Range("clientLagUs", 1, HOUR_US, "the lag histogram's range; 0 is left out"),
          new Range(
              "prefixBlocks",
              1,
              Integer.MAX_VALUE,
              "the blocks of a prompt, an int; none: left out"));

  /** Every free-text field, in the design's order. */
  public static final List<Length> LENGTHS =
      List.of(
          new Length("runId", 128, "a run id (the producer's are about 30)"),
          new Length("requestId", 128, "the proxy's cap on a request id from a header"),
          new Length(
              "model", MAX_MODEL_CHARS, "the proxy's cap on a model name from a request body"),
          new Length("finishReason", MAX_FINISH_REASON_CHARS, "a word such as stop or length"),
          new Length("message", MAX_MESSAGE_CHARS, "one line saying what to check"),
          new Length("producerId", 128, "a producer's id (a host name and a number)"),
          new Length("source", 8, "producer or proxy"));

  // by TokenEventDecoder's field number: what the decoders check
  static final long RANGED;
  static final long TEXT;
  static final long[] MIN = new long[TokenEventDecoder.FIELD_NAMES.length];
  static final long[] MAX = new long[TokenEventDecoder.FIELD_NAMES.length];
  static final int[] MAX_CHARS = new int[TokenEventDecoder.FIELD_NAMES.length];

  static {
    long ranged = 0;
    for (Range r : RANGES) {
      int f = field(r.field());
      ranged |= 1L << f;
      MIN[f] = r.min();
      MAX[f] = r.max();
    }
    long text = 0;
    for (Length l : LENGTHS) {
      int f = field(l.field());
      text |= 1L << f;
      MAX_CHARS[f] = l.maxChars();
    }
    RANGED = ranged;
    TEXT = text;
  }

  private TokenEventBounds() {}

  private static int field(String name) {
    List<String> names = List.of(TokenEventDecoder.FIELD_NAMES);
    int f = names.indexOf(name);
    if (f < 0) {
      throw new IllegalStateException("no token event field " + name);
    }
    return f;
  }

  /**
   * What puts a decoded event's fields outside their bounds (the words after "not a token event:
   * "), the first in the design's order, or null. The fields the common rule checks first ({@code
   * ts}) are checked again, harmlessly.
   */
  static String problem(TokenEvent e) {
    for (int f = 0; f < TokenEventDecoder.FIELD_NAMES.length; f++) {
      String problem = problem(e, f);
      if (problem != null) {
        return problem;
      }
    }
    return null;
  }

  private static String problem(TokenEvent e, int f) {
    if (f == TokenEventDecoder.LABELS) {
      return e.labels() == null ? null : labelsProblem(e.labels());
    }
    if (f == TokenEventDecoder.ENGINE_TIMING) {
      return e.engineTiming() == null ? null : EngineBounds.problem(e.engineTiming());
    }
    if (f == TokenEventDecoder.ENGINE) {
      return e.engine() == null ? null : EngineBounds.problem(e.engine());
    }
    if (f == TokenEventDecoder.PREFIX_HASHES) {
      return e.prefixHashes() == null || e.prefixHashes().size() <= MAX_PREFIX_HASHES
          ? null
          : "prefixHashes has "
              + e.prefixHashes().size()
              + " hashes, more than "
              + MAX_PREFIX_HASHES;
    }
    Object value = VALUES.get(f).apply(e);
    if (value == null) {
      return null;
    }
    if ((RANGED & (1L << f)) != 0) {
      return rangeProblem(f, ((Number) value).longValue());
    }
    if ((TEXT & (1L << f)) != 0) {
      return lengthProblem(TokenEventDecoder.FIELD_NAMES[f], (String) value, MAX_CHARS[f]);
    }
    return null;
  }

  /** The problem of an integer field's value, or null when it is within its range. */
  static String rangeProblem(int f, long value) {
    return rangeProblem(TokenEventDecoder.FIELD_NAMES[f], value, MIN[f], MAX[f]);
  }

  /**
   * The problem of {@code name}'s value outside {@code [min, max]} (the words every range's breach
   * is told in), or null.
   */
  static String rangeProblem(String name, long value, long min, long max) {
    if (value < min) {
      return value < 0 && min == 0
          ? "negative " + name + " " + value
          : name + " " + value + " is less than " + min;
    }
    return value > max ? name + " " + value + " is more than " + max : null;
  }

  /** The problem of a text longer than {@code max} code points, or null. */
  static String lengthProblem(String name, String value, int max) {
    // the length in chars bounds the code points: count them only past it
    if (value.length() <= max) {
      return null;
    }
    int chars = value.codePointCount(0, value.length());
    return chars <= max ? null : name + " is " + chars + " characters, more than " + max;
  }

  private static String labelsProblem(Map<String, String> labels) {
    if (labels.size() > MAX_LABELS) {
      return "labels has " + labels.size() + " entries, more than " + MAX_LABELS;
    }
    for (Map.Entry<String, String> label : labels.entrySet()) {
      String name = lengthProblem("a label name", label.getKey(), MAX_LABEL_NAME_CHARS);
      if (name != null) {
        return name;
      }
      String value =
          lengthProblem("label " + label.getKey(), label.getValue(), MAX_LABEL_VALUE_CHARS);
      if (value != null) {
        return value;
      }
    }
    return null;
  }

  /** Each field's value in an event, by field number. */
  private static final List<Function<TokenEvent, Object>> VALUES = values();

  private static List<Function<TokenEvent, Object>> values() {
    List<Function<TokenEvent, Object>> values = new ArrayList<>();
    values.add(TokenEvent::type);
    values.add(TokenEvent::v);
    values.add(TokenEvent::ts);
    values.add(TokenEvent::runId);
    values.add(TokenEvent::requestId);
    values.add(TokenEvent::model);
    values.add(TokenEvent::labels);
    values.add(TokenEvent::elapsedNs);
    values.add(TokenEvent::seq);
    values.add(TokenEvent::tokens);
    values.add(TokenEvent::kind);
    values.add(TokenEvent::promptTokens);
    values.add(TokenEvent::cachedTokens);
    values.add(TokenEvent::completionTokens);
    values.add(TokenEvent::finishReason);
    values.add(TokenEvent::errorClass);
    values.add(TokenEvent::httpStatus);
    values.add(TokenEvent::message);
    values.add(TokenEvent::scheduleLagNs);
    values.add(TokenEvent::malformedChunks);
    values.add(TokenEvent::producerId);
    values.add(TokenEvent::watermark);
    values.add(TokenEvent::isFinal);
    values.add(TokenEvent::clientPauseMaxUs);
    values.add(TokenEvent::loopLagMaxUs);
    values.add(TokenEvent::coalescedChunks);
    values.add(TokenEvent::coalesced);
    values.add(TokenEvent::warmup);
    values.add(TokenEvent::source);
    values.add(TokenEvent::droppedEvents);
    values.add(TokenEvent::clientLagUs);
    values.add(TokenEvent::prefixHashes);
    values.add(TokenEvent::prefixBlocks);
    values.add(TokenEvent::engineTiming);
    values.add(TokenEvent::engine);
    return values;
  }

  /**
   * The fields an event carries, a bit {@code 1L << field} each (by {@link TokenEventDecoder}'s
   * field numbers; a primitive always counts as carried).
   */
  static long present(TokenEvent e) {
    long present = 0;
    for (int f = 0; f < VALUES.size(); f++) {
      if (VALUES.get(f).apply(e) != null) {
        present |= 1L << f;
      }
    }
    return present;
  }

  /**
   * {@code text} cut to at most {@code maxChars} code points, ending in "…" when cut (null stays
   * null): what a writer puts in a bounded field whose value came from outside.
   */
  public static String fit(String text, int maxChars) {
    if (text == null || text.codePointCount(0, text.length()) <= maxChars) {
      return text;
    }
    return text.substring(0, text.offsetByCodePoints(0, maxChars - 1)) + "…";
  }

  /** The most code points {@code field} may hold (a field of {@link #LENGTHS}). */
  public static int maxChars(String field) {
    int f = field(field);
    if ((TEXT & (1L << f)) == 0) {
      throw new IllegalArgumentException("no length bound for " + field);
    }
    return MAX_CHARS[f];
  }
}
