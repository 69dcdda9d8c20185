package io.tpotstream.archive;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Turns one line of an archive into an {@link ArchivedRecord}, reading no more of it than the
 * replay order needs. Lines as {@link ArchiveWriter} writes them ({@code
 * {"key":…,"partition":…,"offset":…,"timestamp":…,"value":{"type":…,"v":…,"ts":…,…}}}) are read by
 * position: the envelope's numbers, the key's and the value's bounds, and the value's {@code type}
 * and {@code ts}; only a heartbeat's value is parsed further. Any other layout (other field order,
 * spaces, a bare token event per line) goes through Jackson.
 */
final class ArchiveLines {
  private static final byte[] KEY = ascii("{\"key\":");
  private static final byte[] PARTITION = ascii(",\"partition\":");
  private static final byte[] OFFSET = ascii(",\"offset\":");
  private static final byte[] TIMESTAMP = ascii(",\"timestamp\":");
  private static final byte[] VALUE = ascii(",\"value\":");
  private static final byte[] TYPE = ascii("{\"type\":\"");
  private static final byte[] V = ascii(",\"v\":");
  private static final byte[] TS = ascii(",\"ts\":");
  private static final byte[] NULL = ascii("null");
  private static final byte[] HEARTBEAT = ascii("heartbeat");

  /** A line that cannot be read; the message says why. */
  static final class CorruptLine extends Exception {
    CorruptLine(String message) {
      super(message, null, false, false);
    }
  }

  // where the positional parse is in the current line (so one instance serves one thread)
  private int pos;
  private boolean failed;

  /**
   * Adds the record on {@code buf[start, end)} (no line break; {@code buf} is block {@code
   * blockIndex} of {@code table}), from line {@code line}, to {@code table}.
   *
   * @throws CorruptLine when the line is not a record
   */
  void parse(ArchiveTable table, int blockIndex, byte[] buf, int start, int end, long line)
      throws CorruptLine {
    while (end > start && isSpace(buf[end - 1])) {
      end--;
    }
    if (!byPosition(table, blockIndex, buf, start, end, line)
        && !bareEvent(table, blockIndex, buf, start, end, line)) {
      withJackson(table, buf, start, end, line);
    }
  }

  /**
   * A line that is a token event itself (a file of events, as {@code kcat -C} writes a topic): the
   * line is the value, the request id the key; only the top-level fields are read.
   */
  private static boolean bareEvent(
      ArchiveTable table, int blockIndex, byte[] buf, int start, int end, long line)
      throws CorruptLine {
    if (buf[start] != '{') {
      return false;
    }
    EventFields f = new EventFields();
    try (JsonParser parser = Json.MAPPER.getFactory().createParser(buf, start, end - start)) {
      parser.nextToken();
      if (!f.read(parser, true)) {
        return false; // an exported record in another layout
      }
      if (parser.nextToken() != null) {
        throw new CorruptLine("more than one JSON value on the line");
      }
    } catch (IOException e) {
      throw new CorruptLine("not JSON (" + firstLine(e.getMessage()) + ")");
    }
    if (f.type == null || f.ts == Long.MIN_VALUE) {
      return false;
    }
    long ts = f.ts;
    String requestId = f.requestId;
    int flags = f.flags();
    ArchivedRecord.Heartbeat heartbeat = f.heartbeat();
    if (requestId == null) {
      table.add(
          blockIndex, -1, 0, start, end - start, 0, Long.MIN_VALUE, ts, ts, flags, heartbeat, line);
    } else {
      // a row's key and value share a block: both go to the table's arena
      byte[] key = requestId.getBytes(StandardCharsets.UTF_8);
      int keyAt = table.putInArena(key, 0, key.length);
      int valueAt = table.putInArena(buf, start, end - start);
      table.add(
          table.arenaBlock(),
          keyAt,
          key.length,
          valueAt,
          end - start,
          0,
          Long.MIN_VALUE,
          ts,
          ts,
          flags,
          heartbeat,
          line);
    }
    // the offset of a bare event is its line number in the file, set when the table is whole
    return true;
  }

  private boolean byPosition(
      ArchiveTable table, int blockIndex, byte[] buf, int start, int end, long line) {
    failed = false;
    pos = start;
    if (!expect(buf, end, KEY)) {
      return false;
    }
    int keyStart;
    int keyLength;
    int flags = 0;
    if (pos < end && buf[pos] == '"') {
      keyStart = ++pos;
      while (pos < end && buf[pos] != '"') {
        if (buf[pos] == '\\') {
          flags |= ArchivedRecord.KEY_ESCAPED;
          pos++;
        }
        pos++;
      }
      if (pos >= end) {
        return false;
      }
      keyLength = pos - keyStart;
      pos++;
    } else if (expect(buf, end, NULL)) {
      keyStart = -1;
      keyLength = 0;
    } else {
      return false;
    }
    if (!expect(buf, end, PARTITION)) {
      return false;
    }
    long partition = number(buf, end);
    if (failed || !expect(buf, end, OFFSET)) {
      return false;
    }
    long offset = number(buf, end);
    if (failed || !expect(buf, end, TIMESTAMP)) {
      return false;
    }
    long timestamp = number(buf, end);
    if (failed || !expect(buf, end, VALUE) || partition < 0 || partition > Integer.MAX_VALUE) {
      return false;
    }
    // the value runs to the line's closing brace
    int valueStart = pos;
    int valueEnd = end - 1;
    if (valueEnd <= valueStart || buf[valueEnd] != '}') {
      return false;
    }
    byte first = buf[valueStart];
    int valueLength = valueEnd - valueStart;
    ValueFacts facts;
    if (first == '"') {
      facts = new ValueFacts(timestamp, ArchivedRecord.VALUE_TEXT, null);
    } else if (first == 'n' && valueLength == 4) {
      valueStart = -1; // a null value
      valueLength = 0;
      facts = new ValueFacts(timestamp, 0, null);
    } else if (first == '{') {
      facts = valueFacts(buf, valueStart, valueLength, timestamp);
    } else {
      return false;
    }
    table.add(
        blockIndex,
        keyStart,
        keyLength,
        valueStart,
        valueLength,
        (int) partition,
        offset,
        timestamp,
        facts.ts,
        flags | facts.flags,
        facts.heartbeat,
        line);
    return true;
  }

  /** What the replay order needs from a value: its ts, and whether (and which) heartbeat. */
  record ValueFacts(long ts, int flags, ArchivedRecord.Heartbeat heartbeat) {
    boolean isFinal() {
      return (flags & ArchivedRecord.FINAL) != 0;
    }
  }

  /**
   * What the replay order needs from a Kafka record's value as {@link ArchiveWriter} will write it:
   * the same facts this class reads back from the written line, so that an exporter can put lines
   * in the order the reader will find them in.
   */
  ValueFacts facts(byte[] value, long timestampMs) {
    if (value == null) {
      return new ValueFacts(timestampMs, 0, null);
    }
    byte[] written = value;
    if (!ArchiveWriter.isOneObjectOnOneLine(value)) {
      try {
        written = ArchiveWriter.otherValue(value); // an object re-encoded on one line, or text
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (written.length == 0 || written[0] != '{') {
        return new ValueFacts(timestampMs, 0, null); // kept as a JSON string
      }
    }
    return valueFacts(written, 0, written.length, timestampMs);
  }

  /**
   * Reads {@code type} and {@code ts} by position when the value starts as the codec writes it;
   * else (or for a heartbeat) with Jackson's streaming parser.
   */
  private ValueFacts valueFacts(byte[] buf, int start, int length, long timestampMs) {
    int end = start + length;
    pos = start;
    failed = false;
    if (expect(buf, end, TYPE)) {
      int typeStart = pos;
      while (pos < end && buf[pos] != '"' && buf[pos] != '\\') {
        pos++;
      }
      int typeEnd = pos++;
      if (typeEnd < end
          && buf[typeEnd] == '"'
          && !isHeartbeat(buf, typeStart, typeEnd)
          && expect(buf, end, V)) {
        number(buf, end);
        if (!failed && expect(buf, end, TS)) {
          long ts = number(buf, end);
          if (!failed && pos < end && (buf[pos] == ',' || buf[pos] == '}') && ts > 0) {
            return new ValueFacts(ts, 0, null);
          }
        }
      }
    }
    return streamed(buf, start, length, timestampMs);
  }

  private static ValueFacts streamed(byte[] buf, int start, int length, long timestampMs) {
    EventFields f = new EventFields();
    try (JsonParser parser = Json.MAPPER.getFactory().createParser(buf, start, length)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return new ValueFacts(timestampMs, 0, null);
      }
      f.read(parser, false);
    } catch (IOException e) {
      // not JSON after all: replayed as it is; stats reports it when it cannot decode it
      return new ValueFacts(timestampMs, 0, null);
    }
    return new ValueFacts(f.ts == Long.MIN_VALUE ? timestampMs : f.ts, f.flags(), f.heartbeat());
  }

  /** The top-level fields of a token event that the replay order and the fan-out need. */
  private static final class EventFields {
    String type;
    long ts = Long.MIN_VALUE;
    String requestId;
    String producerId;
    Long watermark;
    boolean isFinal;

    /**
     * Reads the fields of the object whose start the parser just passed; with {@code bareLine},
     * false (and stops) at a field of the export layout ({@code value}, {@code partition}, {@code
     * offset}), which an event value may carry as any other unknown field.
     */
    boolean read(JsonParser parser, boolean bareLine) throws IOException {
      for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        switch (field) {
          case "value", "partition", "offset" -> {
            if (bareLine) {
              return false;
            }
            parser.skipChildren();
          }
          case "type" -> type = value == JsonToken.VALUE_STRING ? parser.getText() : null;
          case "ts" -> ts = fitsLong(parser, value) ? parser.getLongValue() : ts;
          case "requestId" -> requestId = value == JsonToken.VALUE_STRING ? parser.getText() : null;
          case "producerId" ->
              producerId = value == JsonToken.VALUE_STRING ? parser.getText() : null;
          case "watermark" -> watermark = fitsLong(parser, value) ? parser.getLongValue() : null;
          case "final" -> isFinal = value == JsonToken.VALUE_TRUE;
          default -> parser.skipChildren();
        }
      }
      return true;
    }

    /**
     * An integer within a long: a larger one is no event's (the codec refuses it), but the line is
     * still JSON and is kept, for the decoder to report.
     */
    private static boolean fitsLong(JsonParser parser, JsonToken value) throws IOException {
      return value == JsonToken.VALUE_NUMBER_INT
          && parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER;
    }

    /** {@link ArchivedRecord#HEARTBEAT} and {@link ArchivedRecord#FINAL} as they apply. */
    int flags() {
      if (!"heartbeat".equals(type)) {
        return 0;
      }
      return ArchivedRecord.HEARTBEAT | (isFinal ? ArchivedRecord.FINAL : 0);
    }

    /** The heartbeat to fan out, or null. */
    ArchivedRecord.Heartbeat heartbeat() {
      return "heartbeat".equals(type) && producerId != null && watermark != null
          ? new ArchivedRecord.Heartbeat(producerId, watermark, isFinal)
          : null;
    }
  }

  /** Any layout Jackson reads: an exported record in other order or spacing, or a bare event. */
  private void withJackson(ArchiveTable table, byte[] buf, int start, int end, long line)
      throws CorruptLine {
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(buf, start, end - start);
    } catch (IOException e) {
      throw new CorruptLine("not JSON (" + firstLine(e.getMessage()) + ")");
    }
    if (node == null || !node.isObject()) {
      throw new CorruptLine("not a JSON object");
    }
    try {
      if (node.has("value")) {
        JsonNode key = node.get("key");
        JsonNode value = node.get("value");
        byte[] valueBytes =
            value == null || value.isNull()
                ? null
                : value.isTextual()
                    ? value.asText().getBytes(StandardCharsets.UTF_8)
                    : Json.MAPPER.writeValueAsBytes(value);
        long timestamp =
            node.has("timestamp") ? node.get("timestamp").asLong() : value.path("ts").asLong();
        own(
            table,
            key == null || key.isNull() ? null : key.asText(),
            valueBytes,
            value.isObject(),
            node.path("partition").asInt(0),
            node.has("offset") ? node.get("offset").asLong() : Long.MIN_VALUE,
            timestamp,
            line);
        return;
      }
      if (node.has("type") && node.has("ts")) {
        byte[] valueBytes = Json.MAPPER.writeValueAsBytes(node);
        JsonNode requestId = node.get("requestId");
        // the offset of a bare event is its line number in the file, set when the table is whole
        own(
            table,
            requestId == null ? null : requestId.asText(),
            valueBytes,
            true,
            0,
            Long.MIN_VALUE,
            node.get("ts").asLong(),
            line);
        return;
      }
    } catch (IOException e) {
      throw new CorruptLine("unreadable (" + firstLine(e.getMessage()) + ")");
    }
    throw new CorruptLine(
        "neither an exported record (key, partition, offset, timestamp, value) nor a token event");
  }

  /** A record whose key and value are copied into the table's arena. */
  private static void own(
      ArchiveTable table,
      String key,
      byte[] value,
      boolean valueIsObject,
      int partition,
      long offset,
      long timestamp,
      long line) {
    byte[] keyBytes = key == null ? new byte[0] : key.getBytes(StandardCharsets.UTF_8);
    int valueLength = value == null ? 0 : value.length;
    int keyAt = table.putInArena(keyBytes, 0, keyBytes.length);
    int valueAt = value == null ? -1 : table.putInArena(value, 0, valueLength);
    ValueFacts facts =
        valueIsObject && value != null
            ? streamed(value, 0, valueLength, timestamp)
            : new ValueFacts(timestamp, 0, null);
    table.add(
        table.arenaBlock(),
        key == null ? -1 : keyAt,
        keyBytes.length,
        valueAt,
        valueLength,
        partition,
        offset,
        timestamp,
        facts.ts,
        facts.flags,
        facts.heartbeat,
        line);
  }

  private boolean expect(byte[] buf, int end, byte[] literal) {
    if (end - pos < literal.length) {
      return false;
    }
    for (int i = 0; i < literal.length; i++) {
      if (buf[pos + i] != literal[i]) {
        return false;
      }
    }
    pos += literal.length;
    return true;
  }

  /** An integer at pos (optionally negative); sets {@code failed} when there is none. */
  private long number(byte[] buf, int end) {
    int i = pos;
    boolean negative = i < end && buf[i] == '-';
    if (negative) {
      i++;
    }
    int digitsStart = i;
    long value = 0;
    for (; i < end; i++) {
      int digit = buf[i] - '0';
      if (digit < 0 || digit > 9) {
        break;
      }
      value = value * 10 + digit;
    }
    int digits = i - digitsStart;
    pos = i;
    if (digits == 0 || digits > 18) {
      failed = true;
      return 0;
    }
    return negative ? -value : value;
  }

  private static boolean isHeartbeat(byte[] buf, int start, int end) {
    if (end - start != HEARTBEAT.length) {
      return false;
    }
    for (int i = 0; i < HEARTBEAT.length; i++) {
      if (buf[start + i] != HEARTBEAT[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\r';
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
