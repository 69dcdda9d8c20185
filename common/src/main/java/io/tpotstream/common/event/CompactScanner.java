package io.tpotstream.common.event;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.TreeMap;

/**
 * The token events producers write, read without a general JSON parser: an object with no
 * whitespace, known fields in any order, each once, strings of printable ASCII without escapes,
 * integers without fraction or exponent, {@code true}/{@code false} and a labels object of strings
 * with distinct names. That is a strict subset of JSON on which Jackson's data binding gives
 * exactly these values, so what this scanner accepts (then checked by {@link TokenEventRules}) is
 * what {@link TokenEventCodec#decode} accepts. Anything else (whitespace, an escape, a non-ASCII
 * byte, an unknown field, a null, a fraction, a number of 19 digits, a repeated field or label, a
 * value outside its {@link TokenEventBounds}) makes it answer "not sure", and {@link
 * TokenEventDecoder} reads the record with Jackson's streaming parser instead.
 */
final class CompactScanner {
  private static final byte[][] NAMES = new byte[TokenEventDecoder.FIELD_NAMES.length][];

  /** The event types, the most frequent first. */
  private static final byte[][] TYPES = {
    utf8("token"), utf8("heartbeat"), utf8("start"), utf8("end"), utf8("error")
  };

  private static final EventType[] TYPE_VALUES = {
    EventType.TOKEN, EventType.HEARTBEAT, EventType.START, EventType.END, EventType.ERROR
  };
  private static final byte[][] KINDS = {utf8("content"), utf8("reasoning"), utf8("tool")};
  private static final byte[][] ERROR_CLASSES =
      ErrorClasses.KNOWN.stream().map(CompactScanner::utf8).toArray(byte[][]::new);
  private static final byte[] TRUE = utf8("true");
  private static final byte[] FALSE = utf8("false");
  private static final int NOT_SURE = Integer.MIN_VALUE;
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGH_BITS = 0x8080808080808080L;

  /**
   * Each field's key as producers write it, {@code "name":}, as little-endian words of eight bytes:
   * its first word, its last (ending at the colon, overlapping the ones before it) and the one
   * after the first when the key is longer than sixteen bytes. A key shorter than a word is padded
   * with zeros and compared under {@link #SHORT_MASK}.
   */
  private static final long[] KEY_FIRST = new long[NAMES.length];

  private static final long[] KEY_SECOND = new long[NAMES.length];
  private static final long[] KEY_LAST = new long[NAMES.length];
  private static final int[] KEY_LENGTH = new int[NAMES.length];
  private static final long[] SHORT_MASK = new long[NAMES.length];

  static {
    for (int f = 0; f < NAMES.length; f++) {
      NAMES[f] = utf8(TokenEventDecoder.FIELD_NAMES[f]);
      byte[] key = utf8('"' + TokenEventDecoder.FIELD_NAMES[f] + "\":");
      int n = key.length;
      if (n > 24) {
        throw new IllegalStateException(
            "a field name longer than 21 bytes: " + TokenEventDecoder.FIELD_NAMES[f]);
      }
      KEY_LENGTH[f] = n;
      byte[] padded = Arrays.copyOf(key, Math.max(n, 16));
      KEY_FIRST[f] = (long) LONGS.get(padded, 0);
      KEY_SECOND[f] = (long) LONGS.get(padded, 8);
      KEY_LAST[f] = (long) LONGS.get(padded, Math.max(n, 8) - 8);
      SHORT_MASK[f] = n < 8 ? (1L << (8 * n)) - 1 : -1L;
    }
  }

  /** The field that followed each field in the last record scanned (last index: the first). */
  private final int[] follows = new int[NAMES.length + 1];

  /** The bounds of the label names read so far in the current labels object, two ints a name. */
  private final int[] labelNames = new int[2 * TokenEventBounds.MAX_LABELS];

  // what the value just read was: a string's bounds or a number
  private int stringStart;
  private int stringEnd;
  private long number;

  CompactScanner() {
    for (int f = 0; f < NAMES.length; f++) {
      follows[f] = f + 1;
    }
    follows[NAMES.length] = 0;
  }

  /**
   * Reads {@code b} into {@code d} when it is sure; false leaves {@code d} half-filled (clear it).
   */
  boolean scan(byte[] key, byte[] b, DecodedEvent d) {
    int n = b.length;
    if (n < 2 || b[0] != '{') {
      return false;
    }
    long seen = 0;
    int v = 0;
    int producerIdStart = 0;
    int producerIdEnd = 0;
    int requestIdStart = -1;
    int requestIdEnd = -1;
    int previous = NAMES.length;
    int i = 1;
    while (true) {
      // "name":
      int field = follows[previous];
      if (field < NAMES.length && keyAt(b, i, field)) {
        i += KEY_LENGTH[field]; // the field that followed the last one last time
      } else {
        if (i >= n || b[i] != '"') {
          return false;
        }
        int nameEnd = stringEnd(b, i + 1);
        field = nameEnd < 0 ? -1 : field(b, i + 1, nameEnd);
        if (field < 0) {
          return false; // a field this scanner does not know: Jackson skips it
        }
        if (nameEnd + 1 >= n || b[nameEnd + 1] != ':') {
          return false;
        }
        i = nameEnd + 2;
      }
      long bit = 1L << field;
      if ((seen & bit) != 0) {
        return false;
      }
      seen |= bit;
      follows[previous] = field;
      previous = field;
      switch (field) {
        case TokenEventDecoder.TYPE -> {
          i = string(b, i);
          int type = i == NOT_SURE ? -1 : word(b, TYPES);
          if (type < 0) {
            return false;
          }
          d.type = TYPE_VALUES[type];
        }
        case TokenEventDecoder.V -> {
          i = integer(b, i, 9);
          v = (int) number;
        }
        case TokenEventDecoder.TS -> {
          i = integer(b, i, 18);
          d.ts = number;
        }
        case TokenEventDecoder.REQUEST_ID -> {
          i = string(b, i);
          requestIdStart = stringStart;
          requestIdEnd = stringEnd;
        }
        case TokenEventDecoder.RUN_ID,
            TokenEventDecoder.FINISH_REASON,
            TokenEventDecoder.MESSAGE,
            TokenEventDecoder.SOURCE ->
            i = string(b, i);
        case TokenEventDecoder.MODEL -> {
          i = string(b, i);
          d.modelStart = stringStart;
          d.modelEnd = stringEnd;
        }
        case TokenEventDecoder.LABELS -> {
          d.labelsStart = i;
          i = labels(b, i);
          d.labelsEnd = i;
        }
        case TokenEventDecoder.ELAPSED_NS -> {
          i = integer(b, i, 18);
          d.elapsedNs = number;
        }
        case TokenEventDecoder.SEQ -> {
          i = integer(b, i, 9);
          d.hasSeq = true;
          d.seq = (int) number;
        }
        case TokenEventDecoder.TOKENS -> {
          i = integer(b, i, 9);
          d.hasTokens = true;
          d.tokens = (int) number;
        }
        case TokenEventDecoder.KIND -> {
          i = string(b, i);
          if (i == NOT_SURE || word(b, KINDS) < 0) {
            return false;
          }
        }
        case TokenEventDecoder.HTTP_STATUS, TokenEventDecoder.MALFORMED_CHUNKS ->
            i = integer(b, i, 9);
        case TokenEventDecoder.PROMPT_TOKENS -> {
          i = integer(b, i, 9);
          d.hasPromptTokens = true;
          d.promptTokens = (int) number;
        }
        case TokenEventDecoder.CACHED_TOKENS -> {
          i = integer(b, i, 9);
          d.hasCachedTokens = true;
          d.cachedTokens = (int) number;
        }
        case TokenEventDecoder.COMPLETION_TOKENS -> {
          i = integer(b, i, 9);
          d.hasCompletionTokens = true;
          d.completionTokens = (int) number;
        }
        case TokenEventDecoder.ERROR_CLASS -> {
          i = string(b, i);
          if (i != NOT_SURE) {
            int known = word(b, ERROR_CLASSES);
            d.errorClass = known < 0 ? ErrorClasses.OTHER : ErrorClasses.KNOWN.get(known);
          }
        }
        case TokenEventDecoder.SCHEDULE_LAG_NS -> {
          i = integer(b, i, 18);
          d.hasScheduleLag = true;
          d.scheduleLagNs = number;
        }
        case TokenEventDecoder.PRODUCER_ID -> {
          i = string(b, i);
          producerIdStart = stringStart;
          producerIdEnd = stringEnd;
        }
        case TokenEventDecoder.WATERMARK -> {
          i = integer(b, i, 18);
          d.watermark = number;
        }
        case TokenEventDecoder.FINAL, TokenEventDecoder.COALESCED, TokenEventDecoder.WARMUP -> {
          i = bool(b, i);
          boolean yes = number == 1;
          if (field == TokenEventDecoder.FINAL) {
            d.isFinal = yes;
          } else if (field == TokenEventDecoder.COALESCED) {
            d.coalesced = yes;
          } else {
            d.warmup = yes;
          }
        }
        case TokenEventDecoder.CLIENT_PAUSE_MAX_US -> {
          i = integer(b, i, 18);
          d.hasClientPause = true;
          d.clientPauseMaxUs = number;
        }
        case TokenEventDecoder.LOOP_LAG_MAX_US -> {
          i = integer(b, i, 18);
          d.hasLoopLag = true;
          d.loopLagMaxUs = number;
        }
        case TokenEventDecoder.COALESCED_CHUNKS, TokenEventDecoder.DROPPED_EVENTS ->
            i = integer(b, i, 18);
        case TokenEventDecoder.CLIENT_LAG_US -> {
          i = integer(b, i, 18);
          d.clientLagUs = number;
        }
        default -> {
          return false;
        }
      }
      if (i == NOT_SURE || i >= n) {
        return false;
      }
      if (outOfBounds(field, bit)) {
        return false; // data binding gives the message
      }
      byte next = b[i++];
      if (next == '}') {
        break; // whatever follows the object, data binding never reads it either
      }
      if (next != ',') {
        return false;
      }
    }
    String problem = TokenEventRules.problem(d, v, seen);
    if (problem != null) {
      return false; // rejected: data binding gives the message
    }
    if (d.type == EventType.HEARTBEAT) {
      d.producerId = ascii(b, producerIdStart, producerIdEnd);
    } else {
      int length = requestIdEnd - requestIdStart;
      d.requestKey =
          key != null && Arrays.equals(key, 0, key.length, b, requestIdStart, requestIdEnd)
              ? key
              : Arrays.copyOfRange(b, requestIdStart, requestIdStart + length);
    }
    return true;
  }

  /**
   * Whether the value just read for {@code field} is outside its {@link TokenEventBounds}: a number
   * out of its range or a string (ASCII here: a byte a character) longer than its most.
   */
  private boolean outOfBounds(int field, long bit) {
    if ((TokenEventBounds.RANGED & bit) != 0) {
      return number < TokenEventBounds.MIN[field] || number > TokenEventBounds.MAX[field];
    }
    return (TokenEventBounds.TEXT & bit) != 0
        && stringEnd - stringStart > TokenEventBounds.MAX_CHARS[field];
  }

  /**
   * The model and labels of a record this scanner read (their places were kept): no parser needed,
   * the strings are plain ASCII, the label names distinct.
   */
  static void readSeries(DecodedEvent d) {
    byte[] b = d.source;
    if (d.modelStart >= 0) {
      d.model = ascii(b, d.modelStart, d.modelEnd);
    }
    if (d.labelsStart < 0) {
      return;
    }
    TreeMap<String, String> labels = new TreeMap<>();
    int i = d.labelsStart + 1;
    while (b[i] == '"') {
      int keyEnd = stringEnd(b, i + 1);
      int valueEnd = stringEnd(b, keyEnd + 3);
      labels.put(ascii(b, i + 1, keyEnd), ascii(b, keyEnd + 3, valueEnd));
      i = valueEnd + 1;
      if (b[i] == ',') {
        i++;
      }
    }
    d.labels = labels;
  }

  /**
   * The end (index of the closing quote) of a string starting at {@code from}, or -1 when it holds
   * a byte this scanner leaves to Jackson. Eight bytes at a time while none of them is a quote, a
   * backslash, a control byte, DEL or a non-ASCII byte.
   */
  static int stringEnd(byte[] b, int from) {
    int i = from;
    while (i <= b.length - 8) {
      long special = special((long) LONGS.get(b, i));
      if (special != 0) {
        // the lowest flagged byte is the first special one (a borrow only flags bytes above it)
        int at = i + (Long.numberOfTrailingZeros(special) >>> 3);
        return b[at] == '"' ? at : -1;
      }
      i += 8;
    }
    return stringEndByBytes(b, i);
  }

  /** {@link #stringEnd} near the end of the record, where a word would read past it. */
  private static int stringEndByBytes(byte[] b, int from) {
    for (int i = from; i < b.length; i++) {
      byte c = b[i];
      if (c == '"') {
        return i;
      }
      if (c < 0x20 || c > 0x7E || c == '\\') {
        return -1; // control, non-ASCII or escape: Jackson's rules, not ours
      }
    }
    return -1;
  }

  /**
   * A word of eight bytes with the high bit of every byte that a plain string cannot hold: a quote,
   * a backslash, a control byte, DEL or a non-ASCII byte.
   */
  private static long special(long x) {
    long quote = x ^ 0x2222222222222222L;
    long backslash = x ^ 0x5C5C5C5C5C5C5C5CL;
    long zero = ((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash);
    long control = (x - 0x2020202020202020L) & ~x;
    long delOrHigher = (x + ONES) | x; // 0x7F + 1 sets the high bit; a carry only leaves 0xFF
    return (zero | control | delOrHigher) & HIGH_BITS;
  }

  /**
   * Whether {@code b} holds the key of {@code field}, {@code "name":}, at {@code from}: one to
   * three words of eight bytes (every event has a dozen or more keys to match).
   */
  private static boolean keyAt(byte[] b, int from, int field) {
    int n = KEY_LENGTH[field];
    if (from > b.length - Math.max(n, 8)) {
      return keyAtByBytes(b, from, field);
    }
    long first = (long) LONGS.get(b, from);
    if (n <= 8) {
      return (first & SHORT_MASK[field]) == KEY_FIRST[field];
    }
    return first == KEY_FIRST[field]
        && (long) LONGS.get(b, from + n - 8) == KEY_LAST[field]
        && (n <= 16 || (long) LONGS.get(b, from + 8) == KEY_SECOND[field]);
  }

  /** {@link #keyAt} near the end of the record, where a word would read past it. */
  private static boolean keyAtByBytes(byte[] b, int from, int field) {
    byte[] name = NAMES[field];
    if (from + name.length + 2 >= b.length || b[from] != '"') {
      return false;
    }
    for (int k = 0; k < name.length; k++) {
      if (b[from + 1 + k] != name[k]) {
        return false;
      }
    }
    return b[from + 1 + name.length] == '"' && b[from + 2 + name.length] == ':';
  }

  /** A string value at {@code i}: sets its bounds, returns the index after it. */
  private int string(byte[] b, int i) {
    if (i >= b.length || b[i] != '"') {
      return NOT_SURE;
    }
    int end = stringEnd(b, i + 1);
    if (end < 0) {
      return NOT_SURE;
    }
    stringStart = i + 1;
    stringEnd = end;
    return end + 1;
  }

  /**
   * A JSON integer of at most {@code maxDigits} digits at {@code i} (so that it fits the field's
   * type), followed by {@code ,} or {@code }}: sets {@link #number}, returns the index after it.
   */
  private int integer(byte[] b, int i, int maxDigits) {
    boolean negative = i < b.length && b[i] == '-';
    int start = negative ? i + 1 : i;
    int j = digits(b, start);
    if (j == NOT_SURE || !plain(b, start, j, maxDigits)) {
      return NOT_SURE;
    }
    number = negative ? -number : number;
    return j;
  }

  /**
   * Whether the digits {@code b[start, end)} are a plain integer of at most {@code maxDigits} (no
   * leading zero) that a comma or the object's end follows: not a fraction, an exponent, a space or
   * garbage.
   */
  private static boolean plain(byte[] b, int start, int end, int maxDigits) {
    int digits = end - start;
    return digits > 0
        && digits <= maxDigits
        && (b[start] != '0' || digits == 1)
        && end < b.length
        && (b[end] == ',' || b[end] == '}');
  }

  /**
   * The digits from {@code start}: sets {@link #number} to their value, returns the index after
   * them, or {@link #NOT_SURE} past eighteen. Eight bytes at a time while a word fits: its leading
   * digits found and converted at once.
   */
  private int digits(byte[] b, int start) {
    int j = start;
    long value = 0;
    int digits = 8;
    while (digits == 8 && j <= b.length - 8) {
      long word = (long) LONGS.get(b, j);
      digits = leadingDigits(word);
      if (j - start + digits > 18) {
        return NOT_SURE; // more digits than any field holds
      }
      if (digits > 0) { // (a shift by 64 is none)
        value = value * POWERS_OF_TEN[digits] + eightDigits(word << (8 * (8 - digits)));
      }
      j += digits;
    }
    if (digits == 8) {
      return digitsByBytes(b, start, j, value); // the record ends within a word
    }
    number = value;
    return j;
  }

  /** {@link #digits} near the end of the record, where a word would read past it. */
  private int digitsByBytes(byte[] b, int start, int j, long value) {
    while (j < b.length && b[j] >= '0' && b[j] <= '9' && j - start < 19) {
      value = value * 10 + (b[j] - '0');
      j++;
    }
    number = value;
    return j;
  }

  private static final long[] POWERS_OF_TEN = {
    1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L
  };

  /**
   * How many of a word's bytes, from its first, are ASCII digits: the lowest byte flagged as not a
   * digit is exact (a borrow or a carry only reaches the bytes above a flagged one).
   */
  private static int leadingDigits(long word) {
    long above = word + 0x4646464646464646L; // '9' + 1 and above get the high bit
    long below = word - 0x3030303030303030L; // under '0' borrows into the high bit
    long notDigit = (above | below | word) & HIGH_BITS;
    return Long.numberOfTrailingZeros(notDigit) >>> 3;
  }

  /**
   * The number written by eight ASCII digits, the first in the lowest byte (leading zero bytes, as
   * a shift leaves them, count as zeros): pairs, then fours, then eight, each by one multiply.
   */
  private static long eightDigits(long word) {
    long v = word & 0x0F0F0F0F0F0F0F0FL;
    v = (v * 2561) >>> 8;
    v = ((v & 0x00FF00FF00FF00FFL) * 6553601) >>> 16;
    return ((v & 0x0000FFFF0000FFFFL) * 42949672960001L) >>> 32;
  }

  /** {@code true} or {@code false} at {@code i}: sets {@link #number} to 1 or 0. */
  private int bool(byte[] b, int i) {
    if (Arrays.equals(b, i, Math.min(b.length, i + 4), TRUE, 0, 4)) {
      number = 1;
      return i + 4;
    }
    if (Arrays.equals(b, i, Math.min(b.length, i + 5), FALSE, 0, 5)) {
      number = 0;
      return i + 5;
    }
    return NOT_SURE;
  }

  /** A labels object of strings with distinct names at {@code i}; returns the index after it. */
  private int labels(byte[] b, int i) {
    int n = b.length;
    if (i >= n || b[i] != '{') {
      return NOT_SURE;
    }
    i++;
    if (i < n && b[i] == '}') {
      return i + 1;
    }
    int count = 0;
    while (true) {
      i = string(b, i);
      if (i == NOT_SURE
          || i >= n
          || b[i] != ':'
          || count == TokenEventBounds.MAX_LABELS
          || stringEnd - stringStart > TokenEventBounds.MAX_LABEL_NAME_CHARS
          || repeated(b, count)) {
        return NOT_SURE;
      }
      labelNames[2 * count] = stringStart;
      labelNames[2 * count + 1] = stringEnd;
      count++;
      i = string(b, i + 1);
      if (i == NOT_SURE
          || i >= n
          || stringEnd - stringStart > TokenEventBounds.MAX_LABEL_VALUE_CHARS) {
        return NOT_SURE;
      }
      if (b[i] == '}') {
        return i + 1;
      }
      if (b[i] != ',') {
        return NOT_SURE;
      }
      i++;
    }
  }

  /** Whether the last string is one of the first {@code count} label names of this object. */
  private boolean repeated(byte[] b, int count) {
    for (int k = 0; k < count; k++) {
      int from = labelNames[2 * k];
      int to = labelNames[2 * k + 1];
      if (Arrays.equals(b, from, to, b, stringStart, stringEnd)) {
        return true;
      }
    }
    return false;
  }

  /** Which of {@code words} the last string is, or -1. */
  private int word(byte[] b, byte[][] words) {
    for (int w = 0; w < words.length; w++) {
      if (same(b, stringStart, stringEnd, words[w])) {
        return w;
      }
    }
    return -1;
  }

  /** The field named by {@code b[from, to)}, or -1 when unknown. */
  private static int field(byte[] b, int from, int to) {
    for (int f = 0; f < NAMES.length; f++) {
      if (same(b, from, to, NAMES[f])) {
        return f;
      }
    }
    return -1;
  }

  private static boolean same(byte[] b, int from, int to, byte[] word) {
    if (to - from != word.length) {
      return false;
    }
    for (int k = 0; k < word.length; k++) {
      if (b[from + k] != word[k]) {
        return false;
      }
    }
    return true;
  }

  private static String ascii(byte[] b, int from, int to) {
    return new String(b, from, to - from, StandardCharsets.US_ASCII);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
