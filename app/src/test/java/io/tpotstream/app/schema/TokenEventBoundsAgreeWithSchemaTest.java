package io.tpotstream.app.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.DecodedEvent;
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
 * is not. The one documented exception: an {@code errorClass} outside the schema's list is invalid
 * by the schema but read, as {@link ErrorClasses#OTHER}.
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
    assertEquals(5 * perType, accepted + rejected);
    assertTrue(accepted > 5 * 40 && rejected > 5 * 60, accepted + " accepted, " + rejected);
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
            .withSource("proxy"));
  }

  private static ObjectNode json(TokenEvent event) {
    return (ObjectNode) Json.MAPPER.valueToTree(event);
  }

  private static String cut(String text) {
    return text.length() <= 300 ? text : text.substring(0, 300) + "… (" + text.length() + ")";
  }
}
