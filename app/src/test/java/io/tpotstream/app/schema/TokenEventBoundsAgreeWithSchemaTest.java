package io.tpotstream.app.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.EngineBounds;
import io.tpotstream.common.event.ErrorClasses;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.event.TokenKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The published schema and the readers judge bounded values alike: every bounded field of every
 * type of event at each bound and one past, at the ends of a long; every text field empty, at its
 * most characters (ASCII, accented, emoji) and past them; labels at and past their bounds. A record
 * the decoders accept is valid by docs/schemas/token-event.v1.schema.json and a record they reject
 * is not; the same for every bounded field inside an engine event's {@code engine} and an end
 * event's {@code engineTiming}. The documented exceptions: an {@code errorClass} outside the
 * schema's list is invalid by the schema but read, as {@link ErrorClasses#OTHER}; and three rules
 * of an engine's values no schema keyword says are the readers' alone (valid by the schema,
 * rejected).
 */
class TokenEventBoundsAgreeWithSchemaTest {
  private static final PublishedSchemas EVENT = PublishedSchemas.load(PublishedSchemas.TOKEN_EVENT);
  private static final long TS = 1_767_225_600_000L;

  private final TokenEventDecoder decoder = new TokenEventDecoder();

  @Test
  void theDecodersAcceptExactlyTheBoundedValuesTheSchemaAllows() {
    List<String> disagreements = new ArrayList<>();
    int accepted = 0;
    int rejected = 0;
    for (TokenEvent base : everyFieldOfEachType()) {
      for (ObjectNode record : generated(base)) {
        boolean valid = EVENT.problems(record).isEmpty();
        String decoderProblem = decoderProblem(record);
        if (valid != (decoderProblem == null)) {
          disagreements.add(
              (valid ? "valid by the schema, rejected: " + decoderProblem : "invalid, accepted")
                  + " on "
                  + cut(record.toString()));
        }
        if (decoderProblem == null) {
          accepted++;
        } else {
          rejected++;
        }
      }
    }
    assertEquals(List.of(), disagreements);
    int perType = 17 * 8 + 6 * 7 + 3 + 11 + 8;
    assertEquals(7 * perType, accepted + rejected);
    assertTrue(accepted > 5 * 40 && rejected > 5 * 60, accepted + " accepted, " + rejected);
  }

  @Test
  void theDecodersAcceptExactlyTheEngineValuesTheSchemaAllows() {
    List<String> disagreements = new ArrayList<>();
    int accepted = 0;
    int records = 0;
    for (ObjectNode record : engineGenerated()) {
      records++;
      boolean valid = EVENT.problems(record).isEmpty();
      String decoderProblem = decoderProblem(record);
      if (valid != (decoderProblem == null)) {
        disagreements.add(
            (valid ? "valid by the schema, rejected: " + decoderProblem : "invalid, accepted")
                + " on "
                + cut(record.toString()));
      }
      accepted += decoderProblem == null ? 1 : 0;
    }
    assertEquals(List.of(), disagreements);
    assertEquals(15 * 8 + 3 * 4 + 4 * 5 + 6, records);
    assertTrue(accepted > 40 && records - accepted > 80, accepted + " of " + records);
  }

  @Test
  void threeRulesOfAnEnginesValuesAreTheReadersAlone() {
    ObjectNode engine = json(everyFieldOfEachType().get(6));
    List<java.util.function.Consumer<ObjectNode>> breaks =
        List.of(
            e -> histogram(e, "[5,5]", "[1,1,1]"), // bounds not ascending
            e -> histogram(e, "[5]", "[1,1,1]"), // not one more count than bounds
            e -> ((ObjectNode) e.get("engine")).put("prefixHits", 2_049)); // more than queries
    for (var change : breaks) {
      ObjectNode record = engine.deepCopy();
      change.accept(record);
      assertEquals(List.of(), EVENT.problems(record), "no schema keyword says it");
      assertTrue(decoderProblem(record) != null, "the readers reject " + record);
    }
  }

  private static void histogram(ObjectNode event, String leUs, String counts) {
    ObjectNode tpot = (ObjectNode) event.get("engine").get("tpot");
    tpot.set("leUs", tree(leUs));
    tpot.set("counts", tree(counts));
  }

  /**
   * The engine event (and the end with engineTiming) with one bounded field inside set, for every
   * field of {@link EngineBounds}: numbers at each bound, one past and at the ends of a long; texts
   * empty, at their most and past it; arrays at their most items and one past; gauges at fractions
   * and infinity. A histogram item is set in a histogram of one bound; each prefix counter is set
   * alone in its range.
   */
  private static List<ObjectNode> engineGenerated() {
    ObjectNode end = json(everyFieldOfEachType().get(5));
    ObjectNode engine = json(everyFieldOfEachType().get(6));
    List<ObjectNode> records = new ArrayList<>();
    for (TokenEventBounds.Range r : EngineBounds.RANGES) {
      for (long value :
          new long[] {
            r.min(), r.max(), r.min() - 1, r.max() + 1, Long.MIN_VALUE, Long.MAX_VALUE, 0, -1
          }) {
        records.add(set(r.field().startsWith("engineTiming") ? end : engine, r.field(), value));
      }
      if (List.of("engine.running", "engine.waiting", "engine.kvCacheUsage").contains(r.field())) {
        for (String decimal : List.of("0.5", r.max() + ".5", "-0.25", "1e999")) {
          records.add(set(engine, r.field(), decimal));
        }
      }
    }
    for (TokenEventBounds.Length l : EngineBounds.LENGTHS) {
      int max = l.maxChars();
      for (String text :
          List.of(
              "",
              "a".repeat(max),
              "\uD83D\uDE00".repeat(max),
              "a".repeat(max + 1),
              "é".repeat(400 * 1024))) {
        ObjectNode record = engine.deepCopy();
        ObjectNode sample = (ObjectNode) record.get("engine");
        String name = l.field().substring("engine.".length()).replace("[]", "");
        if (l.field().endsWith("[]")) {
          sample.putArray(name).add(text);
        } else {
          sample.put(name, text);
        }
        records.add(record);
      }
    }
    for (int n : new int[] {EngineBounds.MAX_MISSING, EngineBounds.MAX_MISSING + 1}) {
      ObjectNode record = engine.deepCopy();
      var names = ((ObjectNode) record.get("engine")).putArray("missing");
      for (int i = 0; i < n; i++) {
        names.add("vllm:m" + i);
      }
      records.add(record);
    }
    for (int[] sizes : new int[][] {{64, 65}, {65, 66}, {64, 66}, {0, 1}}) {
      ObjectNode record = engine.deepCopy();
      ObjectNode tpot = (ObjectNode) record.get("engine").get("tpot");
      var le = tpot.putArray("leUs");
      for (int i = 1; i <= sizes[0]; i++) {
        le.add(1_000L * i);
      }
      var counts = tpot.putArray("counts");
      for (int i = 0; i < sizes[1]; i++) {
        counts.add(i);
      }
      records.add(record);
    }
    return records;
  }

  /** {@code base} with the bounded {@code field} (an {@link EngineBounds} name) set to a value. */
  private static ObjectNode set(ObjectNode base, String field, Object value) {
    ObjectNode record = base.deepCopy();
    String path = field.replace("[]", "");
    if (path.startsWith("histogram.")) {
      ObjectNode tpot = (ObjectNode) record.get("engine").get("tpot");
      boolean bound = path.endsWith("leUs");
      tpot.set("leUs", tree(bound ? "[" + value + "]" : "[1]"));
      tpot.set("counts", tree(bound ? "[0,0]" : "[" + value + ",0]"));
      return record;
    }
    String[] parts = path.split("\\.");
    ObjectNode object = (ObjectNode) record.get(parts[0]);
    object.set(parts[1], tree(value.toString()));
    if (parts[1].equals("prefixQueries")) {
      object.remove("prefixHits");
    } else if (parts[1].equals("prefixHits")) {
      object.put("prefixQueries", EngineBounds.range("engine.prefixQueries").max());
    }
    return record;
  }

  private static JsonNode tree(String json) {
    try {
      return Json.MAPPER.readTree(json);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void anErrorClassOutsideTheSchemasListIsInvalidThereButReadAsOther() {
    for (String errorClass : List.of("http_418", "", "x".repeat(400 * 1024))) {
      ObjectNode error = json(everyFieldOfEachType().get(3));
      error.put("errorClass", errorClass);
      assertTrue(!EVENT.problems(error).isEmpty(), "the schema lists the classes");
      byte[] bytes = error.toString().getBytes(StandardCharsets.UTF_8);
      assertEquals(ErrorClasses.OTHER, decoder.decode(null, bytes).errorClass());
      assertEquals(ErrorClasses.OTHER, TokenEventCodec.decode(bytes).errorClass());
    }
  }

  /** The base event with one field set, for every bounded field and value. */
  private static List<ObjectNode> generated(TokenEvent base) {
    List<ObjectNode> records = new ArrayList<>();
    for (TokenEventBounds.Range r : TokenEventBounds.RANGES) {
      for (long value :
          new long[] {
            r.min(), r.max(), r.min() - 1, r.max() + 1, Long.MIN_VALUE, Long.MAX_VALUE, 0, -1
          }) {
        ObjectNode record = json(base);
        record.put(r.field(), value);
        records.add(record);
      }
    }
    for (TokenEventBounds.Length l : TokenEventBounds.LENGTHS) {
      if (l.field().equals("source")) {
        continue; // an enum of the schema as well (below)
      }
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
        ObjectNode record = json(base);
        record.put(l.field(), value);
        records.add(record);
      }
    }
    for (String source : List.of("producer", "producerX", "p".repeat(400 * 1024))) {
      ObjectNode record = json(base);
      record.put("source", source);
      records.add(record);
    }
    for (String hashes : prefixHashes()) {
      ObjectNode record = json(base);
      try {
        record.set("prefixHashes", Json.MAPPER.readTree(hashes));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
      records.add(record);
    }
    for (Map<String, String> labels : labels()) {
      ObjectNode record = json(base);
      record.set("labels", Json.MAPPER.valueToTree(labels));
      records.add(record);
    }
    return records;
  }

  /** Prefix hashes at and past their bounds: count, whole numbers of a long, items' types. */
  private static List<String> prefixHashes() {
    StringBuilder most = new StringBuilder("[0");
    for (int i = 1; i < TokenEventBounds.MAX_PREFIX_HASHES; i++) {
      most.append(',').append(i);
    }
    String atMost = most + "]";
    String past = most + ",-1]";
    return List.of(
        "[]",
        atMost,
        past,
        "[-9223372036854775808,9223372036854775807]",
        "[9223372036854775808]",
        "[1.5]",
        "[\"1\"]",
        "[null]");
  }

  private static List<Map<String, String>> labels() {
    return List.of(
        numbered(TokenEventBounds.MAX_LABELS),
        numbered(TokenEventBounds.MAX_LABELS + 1),
        numbered(1000),
        Map.of("", ""),
        Map.of("n".repeat(64), "v"),
        Map.of("n".repeat(65), "v"),
        Map.of("n".repeat(40_000), "v"),
        Map.of("k", "v".repeat(256)),
        Map.of("k", "é".repeat(256)),
        Map.of("k", "v".repeat(257)),
        Map.of("k", "v".repeat(400 * 1024)));
  }

  private static Map<String, String> numbered(int n) {
    Map<String, String> labels = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      labels.put("label" + i, "value" + i);
    }
    return labels;
  }

  /** Why the decoders reject the record (they must agree), or null when they read it. */
  private String decoderProblem(JsonNode record) {
    byte[] bytes = record.toString().getBytes(StandardCharsets.UTF_8);
    String codec = null;
    try {
      TokenEventCodec.decode(bytes);
    } catch (TokenEventFormatException e) {
      codec = e.getMessage();
    }
    String fast = null;
    try {
      DecodedEvent ignored = decoder.decode(null, bytes);
    } catch (TokenEventFormatException e) {
      fast = e.getMessage();
    }
    assertEquals(codec, fast, () -> cut(record.toString()));
    return codec;
  }

  /** One event of each type with every field its type may carry. */
  private static List<TokenEvent> everyFieldOfEachType() {
    Map<String, String> labels = Map.of("concurrency", "5", "target", "gw");
    return List.of(
        TokenEvent.start(TS, "run-1", "req-1", "model-a", labels, 1_250L, "p-1")
            .asWarmup()
            .withSource("producer"),
        TokenEvent.token(TS, "run-1", "req-1", "model-a", labels, 9L, 2, 3, TokenKind.TOOL, "p-1")
            .asCoalesced()
            .withClientLag(1_500)
            .withSource("proxy"),
        TokenEvent.end(TS, "run-1", "req-1", "model-a", labels, 90L, 3, 12, 4, "stop", 1, "p-1")
            .withCachedTokens(8),
        TokenEvent.error(
            TS, "run-1", "req-2", "model-b", labels, 30L, 1, "http_429", 429, "slow", 2, "p-1"),
        TokenEvent.heartbeat(TS, "run-1", "p-1", TS - 200, true, 1_500L, 700L, 3L)
            .withDroppedEvents(4)
            .withSource("proxy"),
        TokenEvent.end(TS, "run-1", "req-3", "model-a", labels, 90L, 3, 12, 4, "stop", 1, "p-1")
            .withEngineTiming(new EngineTiming(12_300L, 85_200L, 9_100L, 1_240_500L)),
        TokenEvent.engine(
                TS,
                "run-1",
                "model-a",
                labels,
                "p-1",
                new EngineSample(
                    "http://127.0.0.1:8000/metrics",
                    "vllm",
                    5_000,
                    1,
                    1,
                    "HTTP 503",
                    List.of("vllm:a"),
                    0,
                    new EngineHistogram(List.of(10_000L, 25_000L), List.of(3L, 120L, 4L)),
                    new EngineHistogram(List.of(100_000L), List.of(2L, 1L)),
                    new EngineHistogram(List.of(1_000_000L), List.of(2L, 1L)),
                    new EngineHistogram(List.of(5_000L), List.of(3L, 0L)),
                    3.0,
                    0.0,
                    0.12,
                    2_048L,
                    1_024L))
            .withSource("producer"));
  }

  private static ObjectNode json(TokenEvent event) {
    return (ObjectNode) Json.MAPPER.valueToTree(event);
  }

  private static String cut(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "… (" + text.length() + ")";
  }
}
