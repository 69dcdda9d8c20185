package io.tpotstream.producer.engine;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Reads Prometheus' text exposition format (0.0.4) as a body arrives, bounded where the bytes enter
 * (docs/producer.md, "The engine's own view"): the one home of every bound on what an engine's
 * metrics endpoint can make tpot hold. {@code # HELP} and {@code # TYPE} lines and comments are
 * passed over; a sample line is {@code name{label="value",...} value [timestamp]}, label values
 * with the escapes {@code \\}, {@code \"} and {@code \n}, values as Go reads them ({@code +Inf},
 * {@code NaN}, exponents). Only the samples of the families {@code wanted} names are kept (a
 * family's samples may end in {@code _bucket}, {@code _count}, {@code _sum}, {@code _total} or
 * {@code _created}).
 *
 * <p>A line it cannot read (a bad name, label, escape or number; a label value longer than {@link
 * Limits#maxLabelValueChars}; a line longer than {@link Limits#maxLineBytes}) is counted and
 * skipped, never fatal; wanted samples past {@link Limits#maxSamples} are counted and dropped. Only
 * a body longer than {@link Limits#maxBodyBytes} ends the parse, with an {@link
 * ExpositionException}: the caller stops reading there. Not thread-safe: one parser per body.
 */
public final class ExpositionParser {
  /**
   * The bounds of one body.
   *
   * @param maxBodyBytes the most bytes read; one more fails the scrape
   * @param maxLineBytes the longest line read (its line end excluded); longer ones are skipped
   * @param maxSamples the most samples kept; later ones are dropped and counted
   * @param maxLabelValueChars the longest label value read; a line with a longer one is skipped
   */
  public record Limits(
      long maxBodyBytes, int maxLineBytes, int maxSamples, int maxLabelValueChars) {
    /** 16 MiB of body, 64 KiB a line, 200,000 samples kept, 1 KiB a label value. */
    public static final Limits DEFAULT = new Limits(16L << 20, 64 << 10, 200_000, 1024);
  }

  /** What may follow a family's name in its samples' names (and nothing). */
  static final List<String> SUFFIXES =
      List.of("", "_bucket", "_count", "_sum", "_total", "_created");

  private static final Pattern NUMBER =
      Pattern.compile("[+-]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
  private static final Pattern TIMESTAMP = Pattern.compile("-?[0-9]{1,19}");

  private final Predicate<String> wanted;
  private final Limits limits;
  private final Map<String, List<Exposition.Sample>> samples = new LinkedHashMap<>();
  // bounded caches: a body of a million distinct names or values must not hold a million entries
  private final Map<String, Boolean> familyWanted = new HashMap<>();
  private final Map<String, String> strings = new HashMap<>();
  private byte[] line = new byte[256];
  private int lineLength;
  private boolean overlong;
  private long bodyBytes;
  private long kept;
  private long otherSamples;
  private long badLines;
  private long droppedSamples;

  /** A parser keeping the families {@code wanted} accepts, within {@code limits}. */
  public ExpositionParser(Predicate<String> wanted, Limits limits) {
    this.wanted = wanted;
    this.limits = limits;
  }

  /**
   * Reads {@code length} more bytes of the body from {@code offset}.
   *
   * @throws ExpositionException when the body grows past {@link Limits#maxBodyBytes}
   */
  public void accept(byte[] bytes, int offset, int length) {
    bodyBytes += length;
    if (bodyBytes > limits.maxBodyBytes()) {
      throw new ExpositionException("body larger than " + size(limits.maxBodyBytes()));
    }
    int end = offset + length;
    for (int i = offset; i < end; i++) {
      byte b = bytes[i];
      if (b == '\n') {
        endLine();
      } else if (!overlong) {
        if (lineLength == limits.maxLineBytes()) {
          overlong = true; // skipped to its end, counted once
        } else {
          if (lineLength == line.length) {
            line = Arrays.copyOf(line, Math.min(line.length * 2, limits.maxLineBytes()));
          }
          line[lineLength++] = b;
        }
      }
    }
  }

  /** Reads the last line (one without a line end) and returns what the body held. */
  public Exposition finish() {
    if (lineLength > 0 || overlong) {
      endLine();
    }
    Map<String, List<Exposition.Sample>> out = new LinkedHashMap<>();
    samples.forEach((name, list) -> out.put(name, List.copyOf(list)));
    return new Exposition(out, otherSamples, badLines, droppedSamples);
  }

  /** Parses a whole body at once (tests, tools). */
  public static Exposition parse(String body, Predicate<String> wanted, Limits limits) {
    ExpositionParser parser = new ExpositionParser(wanted, limits);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    parser.accept(bytes, 0, bytes.length);
    return parser.finish();
  }

  private void endLine() {
    if (overlong) {
      badLines++;
    } else {
      int length = lineLength;
      if (length > 0 && line[length - 1] == '\r') {
        length--;
      }
      readLine(new String(line, 0, length, StandardCharsets.UTF_8));
    }
    overlong = false;
    lineLength = 0;
  }

  private void readLine(String text) {
    int i = skipBlanks(text, 0);
    if (i == text.length() || text.charAt(i) == '#') {
      return; // blank, HELP, TYPE or a comment
    }
    int nameEnd = nameEnd(text, i, true);
    if (nameEnd == i) {
      badLines++;
      return;
    }
    String name = text.substring(i, nameEnd);
    if (!wantedName(name)) {
      otherSamples++;
      return;
    }
    Exposition.Sample sample = readSample(text, name, nameEnd);
    if (sample == null) {
      badLines++;
    } else if (kept >= limits.maxSamples()) {
      droppedSamples++;
    } else {
      kept++;
      samples.computeIfAbsent(name, n -> new ArrayList<>()).add(sample);
    }
  }

  /** The rest of a sample line after its name, or null when it cannot be read. */
  private Exposition.Sample readSample(String text, String name, int from) {
    Map<String, String> labels = new LinkedHashMap<>();
    int i = skipBlanks(text, from);
    boolean separated = i > from;
    if (i < text.length() && text.charAt(i) == '{') {
      i = readLabels(text, i + 1, labels);
      if (i < 0) {
        return null;
      }
      separated = true;
    }
    if (!separated) {
      return null; // no value, or "name1": a name glued to its value
    }
    int valueStart = skipBlanks(text, i);
    int valueEnd = tokenEnd(text, valueStart);
    Double value = number(text.substring(valueStart, valueEnd));
    if (value == null) {
      return null;
    }
    int tsStart = skipBlanks(text, valueEnd);
    if (tsStart < text.length()) {
      int tsEnd = tokenEnd(text, tsStart);
      if (!TIMESTAMP.matcher(text.substring(tsStart, tsEnd)).matches()
          || skipBlanks(text, tsEnd) != text.length()) {
        return null;
      }
    }
    Map<String, String> compact = new HashMap<>(labels.size() * 2);
    labels.forEach((k, v) -> compact.put(shared(k), shared(v)));
    return new Exposition.Sample(shared(name), Map.copyOf(compact), value);
  }

  /** Reads labels up to and past their '}'; returns the index after it, or -1 when malformed. */
  private int readLabels(String text, int from, Map<String, String> labels) {
    int i = skipBlanks(text, from);
    StringBuilder value = new StringBuilder();
    while (i < text.length() && text.charAt(i) != '}') {
      int nameEnd = nameEnd(text, i, false);
      if (nameEnd == i) {
        return -1;
      }
      String label = text.substring(i, nameEnd);
      i = skipBlanks(text, nameEnd);
      if (i >= text.length() || text.charAt(i) != '=') {
        return -1;
      }
      i = skipBlanks(text, i + 1);
      if (i >= text.length() || text.charAt(i) != '"') {
        return -1;
      }
      value.setLength(0);
      i++;
      for (; ; i++) {
        if (i >= text.length()) {
          return -1;
        }
        char c = text.charAt(i);
        if (c == '"') {
          break;
        }
        if (c == '\\') {
          if (++i >= text.length()) {
            return -1;
          }
          char e = text.charAt(i);
          if (e == 'n') {
            value.append('\n');
          } else if (e == '\\' || e == '"') {
            value.append(e);
          } else {
            return -1;
          }
        } else {
          value.append(c);
        }
        if (value.length() > limits.maxLabelValueChars()) {
          return -1;
        }
      }
      if (labels.put(label, value.toString()) != null) {
        return -1; // a label given twice
      }
      i = skipBlanks(text, i + 1);
      if (i < text.length() && text.charAt(i) == ',') {
        i = skipBlanks(text, i + 1);
      } else if (i >= text.length() || text.charAt(i) != '}') {
        return -1;
      }
    }
    return i < text.length() ? i + 1 : -1;
  }

  /** The most names and strings each cache holds; past it, each is worked out again. */
  private static final int CACHED = 4096;

  private boolean wantedName(String name) {
    Boolean known = familyWanted.get(name);
    if (known != null) {
      return known;
    }
    boolean yes = false;
    for (String suffix : SUFFIXES) {
      if (name.endsWith(suffix)
          && wanted.test(name.substring(0, name.length() - suffix.length()))) {
        yes = true;
        break;
      }
    }
    if (familyWanted.size() < CACHED) {
      familyWanted.put(name, yes);
    }
    return yes;
  }

  /** {@code s}, or an equal string kept before: the samples kept share their names and values. */
  private String shared(String s) {
    String kept = strings.get(s);
    if (kept != null) {
      return kept;
    }
    if (strings.size() < CACHED) {
      strings.put(s, s);
    }
    return s;
  }

  /** A value as Go's ParseFloat reads Prometheus' values, or null. */
  static Double number(String token) {
    if (token.isEmpty()) {
      return null;
    }
    String unsigned = token.charAt(0) == '+' || token.charAt(0) == '-' ? token.substring(1) : token;
    switch (unsigned.toLowerCase(Locale.ROOT)) {
      case "inf", "infinity" -> {
        return token.charAt(0) == '-' ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      }
      case "nan" -> {
        return Double.NaN;
      }
      default -> {
        if (!NUMBER.matcher(token).matches()) {
          return null;
        }
        return Double.parseDouble(token);
      }
    }
  }

  /** The end of a metric name ({@code colons}) or label name starting at {@code from}. */
  private static int nameEnd(String text, int from, boolean colons) {
    int i = from;
    while (i < text.length()) {
      char c = text.charAt(i);
      boolean letter =
          c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || colons && c == ':';
      if (!letter && !(i > from && c >= '0' && c <= '9')) {
        break;
      }
      i++;
    }
    return i;
  }

  private static int skipBlanks(String text, int from) {
    int i = from;
    while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  private static int tokenEnd(String text, int from) {
    int i = from;
    while (i < text.length() && text.charAt(i) != ' ' && text.charAt(i) != '\t') {
      i++;
    }
    return i;
  }

  /** {@code bytes} as a size a person reads: 16 MiB, 64 KiB. */
  static String size(long bytes) {
    if (bytes % (1L << 20) == 0) {
      return (bytes >> 20) + " MiB";
    }
    if (bytes % 1024 == 0) {
      return (bytes >> 10) + " KiB";
    }
    return bytes + " bytes";
  }
}
