package io.tpotstream.producer.workload;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.producer.config.ConfigException;
import java.io.IOException;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A trace in JSON lines, one request a line: Mooncake's format ({@code timestamp} in ms from the
 * trace's start, {@code input_length}, {@code output_length}, {@code hash_ids}) and tpot's, which
 * adds optional {@code block_size} (512 when absent, the same on every line), {@code model}, {@code
 * labels}, {@code session_id}, {@code turn} and {@code request_id}. Other fields are ignored, as a
 * reader of an open format must; a {@code null} is an absent field. Timestamps must not go back.
 */
public final class JsonLinesTraceReader implements TraceReader {
  /** One value a line: {@code {...} junk} is not a trace line. */
  private static final ObjectReader LINE =
      Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final TraceLines lines;
  private final String where;
  private long lastOffsetMs = -1;
  private long lastLine;
  private int blockSize = -1;
  private long blockSizeLine;

  /**
   * @param where starts every message: {@code config key 'trace': FILE}
   */
  JsonLinesTraceReader(TraceLines lines, String where) {
    this.lines = lines;
    this.where = where;
  }

  @Override
  public TraceRequest next() {
    if (!lines.next()) {
      return null;
    }
    long line = lines.number();
    JsonNode node;
    try {
      node = LINE.readTree(lines.bytes(), 0, lines.length());
    } catch (JsonProcessingException e) {
      throw problem(
          line,
          "is not JSON ("
              + cut(firstLine(e.getOriginalMessage()))
              + "): a trace in JSON lines has one object a line");
    } catch (IOException e) {
      throw problem(line, "cannot be read (" + e.getMessage() + ")");
    }
    if (!(node instanceof ObjectNode o)) {
      throw problem(
          line,
          "is not a JSON object but "
              + cut(node.toString())
              + ": expected {\"timestamp\": ..., \"input_length\": ..., \"output_length\": ...}");
    }
    long offsetMs = whole(o, "timestamp", line, true);
    if (offsetMs < lastOffsetMs) {
      throw problem(
          line,
          "timestamp "
              + offsetMs
              + " is before line "
              + lastLine
              + "'s "
              + lastOffsetMs
              + ": a trace's lines must be in time order");
    }
    int input = (int) whole(o, "input_length", line, true);
    int output = (int) whole(o, "output_length", line, true);
    int block =
        o.hasNonNull("block_size")
            ? (int) whole(o, "block_size", line, true)
            : TraceBounds.DEFAULT_BLOCK_SIZE;
    if (blockSize < 0) {
      blockSize = block;
      blockSizeLine = line;
    } else if (block != blockSize) {
      throw problem(
          line,
          "block_size "
              + block
              + " differs from line "
              + blockSizeLine
              + "'s "
              + blockSize
              + ": a trace has one block size (a hash id is the same text in every request)");
    }
    long[] hashIds = hashIds(o.get("hash_ids"), input, block, line);
    String model = text(o, "model", line);
    SortedMap<String, String> labels = labels(o.get("labels"), line);
    String sessionId = id(o, "session_id", line);
    Integer turn = o.hasNonNull("turn") ? (int) whole(o, "turn", line, true) : null;
    if (turn != null && sessionId == null) {
      throw problem(line, "turn " + turn + " has no session_id: a turn belongs to a session");
    }
    String requestId = id(o, "request_id", line);
    lastOffsetMs = offsetMs;
    lastLine = line;
    return new TraceRequest(
        line, offsetMs, input, output, hashIds, block, model, labels, sessionId, turn, requestId);
  }

  /** A whole number within its field's range; {@code required} refuses an absent one. */
  private long whole(ObjectNode o, String field, long line, boolean required) {
    JsonNode n = o.get(field);
    if (n == null || n.isNull()) {
      if (required) {
        throw problem(line, "has no " + field + " (" + TraceBounds.range(field).reason() + ")");
      }
      return -1;
    }
    return whole(n, field, line);
  }

  private long whole(JsonNode n, String field, long line) {
    if (!n.isIntegralNumber()) {
      throw problem(line, field + " must be a whole number, got " + cut(n.toString()));
    }
    if (!n.canConvertToLong()) {
      TraceBounds.Range r = TraceBounds.range(field);
      throw problem(
          line,
          field
              + " "
              + cut(n.asText())
              + (n.bigIntegerValue().signum() < 0
                  ? " is less than " + r.min()
                  : " is more than " + r.max())
              + " ("
              + r.reason()
              + ")");
    }
    String out = TraceBounds.outOfRange(field, n.longValue());
    if (out != null) {
      throw problem(line, out);
    }
    return n.longValue();
  }

  private long[] hashIds(JsonNode n, int input, int block, long line) {
    if (n == null || n.isNull()) {
      return new long[0];
    }
    if (!n.isArray()) {
      throw problem(line, "hash_ids must be a list of whole numbers, got " + cut(n.toString()));
    }
    long blocks = ((long) input + block - 1) / block;
    int most = (int) Math.min(TraceBounds.MAX_HASH_IDS, blocks);
    if (n.size() > most) {
      throw problem(
          line,
          "hash_ids has "
              + n.size()
              + " ids, more than "
              + most
              + (most == blocks
                  ? " (one per block of " + block + " tokens of its " + input + " input tokens)"
                  : " (tpot's bound)"));
    }
    long[] ids = new long[n.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = whole(n.get(i), "hash_ids", line);
    }
    return ids;
  }

  /** An optional text within its length. */
  private String text(ObjectNode o, String field, long line) {
    JsonNode n = o.get(field);
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.isTextual()) {
      throw problem(line, field + " must be a string, got " + cut(n.toString()));
    }
    return bounded(n.textValue(), field, line);
  }

  /** An optional id: a string, or a whole number taken as its digits. */
  private String id(ObjectNode o, String field, long line) {
    JsonNode n = o.get(field);
    return n != null && n.isIntegralNumber()
        ? bounded(n.asText(), field, line)
        : text(o, field, line);
  }

  private String bounded(String text, String field, long line) {
    String bad = TraceBounds.badText(field, text, TraceBounds.length(field).maxChars());
    if (bad != null) {
      throw problem(line, bad);
    }
    return text;
  }

  private SortedMap<String, String> labels(JsonNode n, long line) {
    if (n == null || n.isNull()) {
      return Collections.emptySortedMap();
    }
    if (!n.isObject()) {
      throw problem(line, "labels must be an object of names to strings, got " + cut(n.toString()));
    }
    if (n.size() > TokenEventBounds.MAX_LABELS) {
      throw problem(
          line,
          "labels has "
              + n.size()
              + " labels, more than "
              + TokenEventBounds.MAX_LABELS
              + " (a token event's bound)");
    }
    SortedMap<String, String> labels = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String bad =
          TraceBounds.badText("a label name", e.getKey(), TokenEventBounds.MAX_LABEL_NAME_CHARS);
      if (bad != null) {
        throw problem(line, "labels: " + bad);
      }
      if (!e.getValue().isTextual()) {
        throw problem(
            line,
            "labels." + cut(e.getKey()) + " must be a string, got " + cut(e.getValue().toString()));
      }
      String value = e.getValue().textValue();
      int chars = value.codePointCount(0, value.length());
      if (chars > TokenEventBounds.MAX_LABEL_VALUE_CHARS) {
        throw problem(
            line,
            "labels."
                + cut(e.getKey())
                + " is "
                + chars
                + " characters, more than "
                + TokenEventBounds.MAX_LABEL_VALUE_CHARS);
      }
      labels.put(e.getKey(), value);
    }
    return Collections.unmodifiableSortedMap(labels);
  }

  private ConfigException problem(long line, String what) {
    return new ConfigException(where + " line " + line + ": " + what);
  }

  private static String firstLine(String text) {
    if (text == null) {
      return "";
    }
    int nl = text.indexOf('\n');
    return nl < 0 ? text : text.substring(0, nl);
  }

  /** At most 80 characters of {@code text}, for a message. */
  static String cut(String text) {
    return text.length() <= 80 ? text : text.substring(0, 80) + "… (" + text.length() + " chars)";
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
