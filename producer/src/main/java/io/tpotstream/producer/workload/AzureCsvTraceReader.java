package io.tpotstream.producer.workload;

import io.tpotstream.producer.config.ConfigException;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.Collections;
import java.util.Locale;

/**
 * The Azure LLM inference trace CSV: a header naming {@code TIMESTAMP}, {@code ContextTokens} and
 * {@code GeneratedTokens} (in any order, other columns ignored), then one request a row. {@code
 * TIMESTAMP} is a date and time such as {@code 2023-11-16 18:15:46.6805900} (UTC unless it carries
 * an offset, {@code +00:00} or {@code Z}); offsets count from the first row, to the ms, and must
 * not go back. The format has no prefix sharing (no hash ids), no model and no sessions.
 */
public final class AzureCsvTraceReader implements TraceReader {
  static final String TIMESTAMP = "TIMESTAMP";
  static final String CONTEXT_TOKENS = "ContextTokens";
  static final String GENERATED_TOKENS = "GeneratedTokens";

  private static final DateTimeFormatter DATE_TIME =
      new DateTimeFormatterBuilder()
          .append(DateTimeFormatter.ISO_LOCAL_DATE)
          .optionalStart()
          .appendLiteral('T')
          .optionalEnd()
          .optionalStart()
          .appendLiteral(' ')
          .optionalEnd()
          .appendPattern("HH:mm:ss")
          .optionalStart()
          .appendFraction(ChronoField.NANO_OF_SECOND, 0, 9, true)
          .optionalEnd()
          .optionalStart()
          .appendOffset("+HH:MM", "Z")
          .optionalEnd()
          .toFormatter(Locale.ROOT);

  private final TraceLines lines;
  private final String where;
  private int timestampColumn = -1;
  private int contextColumn = -1;
  private int generatedColumn = -1;
  private int columns;
  private Instant first;
  private Instant last;
  private long lastLine;

  /**
   * @param where starts every message: {@code config key 'trace': FILE}
   */
  AzureCsvTraceReader(TraceLines lines, String where) {
    this.lines = lines;
    this.where = where;
  }

  @Override
  public TraceRequest next() {
    if (timestampColumn < 0) {
      header();
    }
    if (!lines.next()) {
      return null;
    }
    long line = lines.number();
    String[] fields = lines.text().split(",", -1);
    if (fields.length < columns) {
      throw problem(
          line,
          "has "
              + fields.length
              + " fields, fewer than the header's "
              + columns
              + " ("
              + TIMESTAMP
              + ","
              + CONTEXT_TOKENS
              + ","
              + GENERATED_TOKENS
              + ")");
    }
    Instant at = instant(field(fields, timestampColumn), line);
    if (first == null) {
      first = at;
    } else if (at.isBefore(last)) {
      throw problem(
          line,
          TIMESTAMP
              + " "
              + field(fields, timestampColumn)
              + " is before line "
              + lastLine
              + "'s: a trace's rows must be in time order");
    }
    Duration after = Duration.between(first, at);
    // seconds first: a row centuries away must not overflow a count of ms
    long offsetMs =
        after.getSeconds() > TraceBounds.MAX_OFFSET_MS / 1000
            ? TraceBounds.MAX_OFFSET_MS + 1
            : after.getSeconds() * 1000 + Math.round(after.getNano() / 1e6);
    if (offsetMs > TraceBounds.MAX_OFFSET_MS) {
      throw problem(
          line,
          TIMESTAMP
              + " "
              + field(fields, timestampColumn)
              + " is "
              + after.toDays()
              + " days after the first row's, more than "
              + TraceBounds.MAX_OFFSET_MS / 86_400_000
              + " ("
              + TraceBounds.range("timestamp").reason()
              + ")");
    }
    int input = (int) whole(field(fields, contextColumn), "input_length", CONTEXT_TOKENS, line);
    int output =
        (int) whole(field(fields, generatedColumn), "output_length", GENERATED_TOKENS, line);
    last = at;
    lastLine = line;
    return new TraceRequest(
        line,
        offsetMs,
        input,
        output,
        new long[0],
        TraceBounds.DEFAULT_BLOCK_SIZE,
        null,
        Collections.emptySortedMap(),
        null,
        null,
        null);
  }

  private void header() {
    if (!lines.next()) {
      throw new ConfigException(where + " is empty: expected the header " + expectedHeader());
    }
    String[] names = lines.text().split(",", -1);
    for (int i = 0; i < names.length; i++) {
      String name = unquote(names[i]);
      if (name.equalsIgnoreCase(TIMESTAMP)) {
        timestampColumn = i;
      } else if (name.equalsIgnoreCase(CONTEXT_TOKENS)) {
        contextColumn = i;
      } else if (name.equalsIgnoreCase(GENERATED_TOKENS)) {
        generatedColumn = i;
      }
    }
    if (timestampColumn < 0 || contextColumn < 0 || generatedColumn < 0) {
      throw problem(
          lines.number(),
          "is not the Azure trace's header "
              + expectedHeader()
              + ": got "
              + JsonLinesTraceReader.cut(lines.text()));
    }
    columns = Math.max(timestampColumn, Math.max(contextColumn, generatedColumn)) + 1;
  }

  private static String expectedHeader() {
    return TIMESTAMP + "," + CONTEXT_TOKENS + "," + GENERATED_TOKENS;
  }

  private Instant instant(String text, long line) {
    try {
      TemporalAccessor t = DATE_TIME.parseBest(text, OffsetDateTime::from, LocalDateTime::from);
      return t instanceof OffsetDateTime o
          ? o.toInstant()
          : ((LocalDateTime) t).toInstant(ZoneOffset.UTC);
    } catch (DateTimeParseException e) {
      throw problem(
          line,
          TIMESTAMP
              + " '"
              + JsonLinesTraceReader.cut(text)
              + "' is not a date and time such as 2023-11-16 18:15:46.6805900");
    }
  }

  private long whole(String text, String field, String column, long line) {
    long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      if (text.matches("-?\\d+")) {
        TraceBounds.Range r = TraceBounds.range(field);
        throw problem(
            line,
            column
                + " "
                + JsonLinesTraceReader.cut(text)
                + (text.startsWith("-") ? " is less than " + r.min() : " is more than " + r.max())
                + " ("
                + r.reason()
                + ")");
      }
      throw problem(
          line, column + " must be a whole number, got '" + JsonLinesTraceReader.cut(text) + "'");
    }
    String out = TraceBounds.outOfRange(field, column, value);
    if (out != null) {
      throw problem(line, out);
    }
    return value;
  }

  private static String field(String[] fields, int column) {
    return unquote(fields[column]);
  }

  private static String unquote(String text) {
    String t = text.trim();
    return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"")
        ? t.substring(1, t.length() - 1).trim()
        : t;
  }

  private ConfigException problem(long line, String what) {
    return new ConfigException(where + " line " + line + ": " + what);
  }

  @Override
  public void close() {
    try {
      lines.close();
    } catch (IOException e) {
      // only read from: nothing is lost
    }
  }
}
