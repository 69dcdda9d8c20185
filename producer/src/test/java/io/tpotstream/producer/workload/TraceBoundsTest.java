package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.producer.config.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The readers hold every value to {@link TraceBounds}, generated from the bounds themselves: each
 * number at its bounds and one past, at the ends of a long, past a long, and of the wrong type;
 * each text empty, at its most characters (ASCII, accented, emoji), one past and 400 KB; labels at
 * and past theirs; the CSV's columns likewise. A value within its bound is read as written; any
 * other stops the reading at its line, naming the line and the field. Files split into random reads
 * read the same.
 */
class TraceBoundsTest {
  private static final String WHERE = "trace t";

  /** A line with every field. */
  private static ObjectNode base() {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("timestamp", 10);
    o.put("input_length", 1024);
    o.put("output_length", 8);
    o.putArray("hash_ids").add(3);
    o.put("block_size", 512);
    o.put("model", "m");
    o.putObject("labels").put("k", "v");
    o.put("session_id", "s");
    o.put("turn", 1);
    o.put("request_id", "r");
    return o;
  }

  /** A generated line, and the value it was generated for (null: not allowed). */
  private record Case(String line, String field, Object expected) {}

  @Test
  void theJsonReaderReadsExactlyTheValuesWithinTheirBounds() {
    List<Case> cases = new ArrayList<>();
    for (TraceBounds.Range r : TraceBounds.RANGES) {
      for (long v :
          new long[] {
            r.min(), r.max(), r.min() - 1, r.max() + 1, Long.MIN_VALUE, Long.MAX_VALUE, 0, -1
          }) {
        boolean within = v >= r.min() && v <= r.max();
        cases.add(
            new Case(
                withNumber(r.field(), JsonNodeFactory.instance.numberNode(v)),
                r.field(),
                within ? v : null));
      }
      for (JsonNode wrong :
          List.of(
              JsonNodeFactory.instance.numberNode(BigInteger.TEN.pow(25)),
              JsonNodeFactory.instance.numberNode(BigInteger.TEN.pow(25).negate()),
              JsonNodeFactory.instance.textNode("5"),
              JsonNodeFactory.instance.numberNode(5.5),
              JsonNodeFactory.instance.booleanNode(true),
              JsonNodeFactory.instance.objectNode())) {
        cases.add(new Case(withNumber(r.field(), wrong), r.field(), null));
      }
    }
    for (TraceBounds.Length l : TraceBounds.LENGTHS) {
      int max = l.maxChars();
      for (String value :
          List.of(
              "",
              "a".repeat(max),
              "é".repeat(max),
              "\uD83D\uDE00".repeat(max),
              "a".repeat(max + 1),
              "\uD83D\uDE00".repeat(max + 1),
              "a".repeat(400 * 1024))) {
        int chars = value.codePointCount(0, value.length());
        boolean within = chars >= 1 && chars <= max;
        ObjectNode o = base();
        o.put(l.field(), value);
        cases.add(new Case(o.toString(), l.field(), within ? value : null));
      }
      ObjectNode number = base();
      number.put(l.field(), 42);
      // an id may be a whole number, read as its digits; a model may not
      cases.add(new Case(number.toString(), l.field(), l.field().equals("model") ? null : "42"));
      ObjectNode list = base();
      list.putArray(l.field()).add("x");
      cases.add(new Case(list.toString(), l.field(), null));
    }
    for (Map<String, String> labels : labels()) {
      ObjectNode o = base();
      o.set("labels", Json.MAPPER.valueToTree(labels));
      boolean within =
          labels.size() <= TokenEventBounds.MAX_LABELS
              && labels.entrySet().stream()
                  .allMatch(
                      e ->
                          !e.getKey().isEmpty()
                              && e.getKey().length() <= TokenEventBounds.MAX_LABEL_NAME_CHARS
                              && e.getValue().codePointCount(0, e.getValue().length())
                                  <= TokenEventBounds.MAX_LABEL_VALUE_CHARS);
      cases.add(new Case(o.toString(), "labels", within ? labels : null));
    }
    int accepted = 0;
    int rejected = 0;
    for (Case c : cases) {
      String problem = null;
      TraceRequest read = null;
      try {
        read = read(TraceFormat.JSONL, c.line());
      } catch (ConfigException e) {
        problem = e.getMessage();
      }
      if (c.expected() == null) {
        assertTrue(problem != null, () -> "accepted: " + cut(c.line()));
        boolean tooLong = c.line().length() > TraceBounds.MAX_LINE_BYTES;
        String named = WHERE + (tooLong ? " line 1 is longer than" : " line 1: ");
        assertTrue(problem.startsWith(named), problem);
        String field = c.field().equals("labels") ? "label" : c.field();
        assertTrue(
            tooLong || problem.contains(field), () -> "names " + field + ": " + cut(c.line()));
        rejected++;
      } else {
        assertEquals(null, problem, () -> cut(c.line()));
        assertEquals(c.expected(), valueOf(read, c.field()), c.field());
        accepted++;
      }
    }
    int perRange = 8 + 6;
    int perLength = 7 + 2;
    assertEquals(
        TraceBounds.RANGES.size() * perRange + TraceBounds.LENGTHS.size() * perLength + 11,
        accepted + rejected);
    assertTrue(accepted > 25 && rejected > 70, accepted + " accepted, " + rejected + " rejected");
  }

  @Test
  void theCsvReaderHoldsItsColumnsToTheSameBounds() {
    int accepted = 0;
    for (String column : List.of("ContextTokens", "GeneratedTokens")) {
      TraceBounds.Range r =
          TraceBounds.range(column.equals("ContextTokens") ? "input_length" : "output_length");
      List<String> values = new ArrayList<>();
      for (long v :
          new long[] {r.min(), r.max(), r.min() - 1, r.max() + 1, Long.MIN_VALUE, Long.MAX_VALUE}) {
        values.add(Long.toString(v));
      }
      values.addAll(List.of("1" + "0".repeat(25), "5.5", "five", "", " 7 "));
      for (String value : values) {
        String row =
            column.equals("ContextTokens")
                ? "2023-11-16 18:15:46.6805900," + value + ",9"
                : "2023-11-16 18:15:46.6805900,9," + value;
        String csv = "TIMESTAMP,ContextTokens,GeneratedTokens\n" + row + "\n";
        Long v = parse(value.trim());
        boolean within = v != null && v >= r.min() && v <= r.max();
        try {
          TraceRequest t = read(TraceFormat.AZURE_CSV, csv);
          assertTrue(within, "accepted: " + row);
          assertEquals(
              v.intValue(), column.equals("ContextTokens") ? t.inputTokens() : t.outputTokens());
          accepted++;
        } catch (ConfigException e) {
          assertTrue(!within, e.getMessage());
          assertTrue(e.getMessage().startsWith(WHERE + " line 2: " + column), e.getMessage());
        }
      }
    }
    assertEquals(6, accepted, "min, max and ' 7 ' of each column");
  }

  @Test
  void aTraceSplitIntoRandomReadsReadsAsAWholeOne() {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      ObjectNode o = base();
      o.put("timestamp", i * 7);
      o.put("turn", i);
      o.put("model", "m-" + "é".repeat(i));
      text.append(o).append(i % 3 == 0 ? "\r\n" : "\n").append(i % 7 == 0 ? "\n" : "");
    }
    byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
    List<String> whole = all(new ByteArrayInputStream(bytes));
    assertEquals(50, whole.size());
    for (int seed = 0; seed < 40; seed++) {
      Random random = new Random(seed);
      int most = seed % 4 == 0 ? 3 : 300;
      InputStream split =
          new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
              return super.read(b, off, Math.min(len, 1 + random.nextInt(most)));
            }
          };
      assertEquals(whole, all(split), "seed " + seed);
    }
  }

  private static List<String> all(InputStream in) {
    List<String> seen = new ArrayList<>();
    try (TraceReader r = TraceFormat.JSONL.read(TraceLines.of(in, WHERE), WHERE)) {
      TraceRequest t;
      while ((t = r.next()) != null) {
        seen.add(t.line() + " " + t.offsetMs() + " " + t.turn() + " " + t.model());
      }
    }
    return seen;
  }

  private static String withNumber(String field, JsonNode value) {
    ObjectNode o = base();
    if (field.equals("hash_ids")) {
      o.putArray("hash_ids").add(value);
    } else {
      o.set(field, value);
    }
    return o.toString();
  }

  private static TraceRequest read(TraceFormat format, String text) {
    InputStream in = new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    try (TraceReader r = format.read(TraceLines.of(in, WHERE), WHERE)) {
      return r.next();
    }
  }

  private static Object valueOf(TraceRequest r, String field) {
    return switch (field) {
      case "timestamp" -> r.offsetMs();
      case "input_length" -> (long) r.inputTokens();
      case "output_length" -> (long) r.outputTokens();
      case "hash_ids" -> r.hashIds()[0];
      case "block_size" -> (long) r.blockSize();
      case "turn" -> (long) r.turn();
      case "model" -> r.model();
      case "session_id" -> r.sessionId();
      case "request_id" -> r.requestId();
      case "labels" -> r.labels();
      default -> throw new IllegalArgumentException(field);
    };
  }

  private static List<Map<String, String>> labels() {
    return List.of(
        numbered(TokenEventBounds.MAX_LABELS),
        numbered(TokenEventBounds.MAX_LABELS + 1),
        numbered(1000),
        Map.of("", "v"),
        Map.of("n".repeat(64), "v"),
        Map.of("n".repeat(65), "v"),
        Map.of("k", ""),
        Map.of("k", "v".repeat(256)),
        Map.of("k", "é".repeat(256)),
        Map.of("k", "v".repeat(257)),
        Map.of("k", "v".repeat(200 * 1024)));
  }

  private static Map<String, String> numbered(int n) {
    Map<String, String> labels = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      labels.put("label" + i, "value" + i);
    }
    return labels;
  }

  private static Long parse(String text) {
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static String cut(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "… (" + text.length() + ")";
  }
}
