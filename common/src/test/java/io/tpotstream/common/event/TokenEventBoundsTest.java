package io.tpotstream.common.event;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The bounds live in one place: {@link TokenEventBounds} (with {@link EngineBounds} for the fields
 * inside {@code engine} and {@code engineTiming}) and docs/schemas/token-event.v1.schema.json
 * declare the same numbers for the same fields, neither more nor fewer.
 */
class TokenEventBoundsTest {
  static final Path SCHEMA = Path.of("..", "docs", "schemas", "token-event.v1.schema.json");

  @Test
  void theSchemaDeclaresExactlyTheBoundsOfTheJavaDeclaration() throws IOException {
    JsonNode schema = Json.MAPPER.readTree(SCHEMA.toFile());
    Map<String, Long> written = written(schema.get("properties"));
    collect("$defs", schema.get("$defs"), written);
    assertEquals(declared(), written);
  }

  @Test
  void everyDeclaredFieldIsATokenEventField() {
    List<String> names = List.of(TokenEventDecoder.FIELD_NAMES);
    for (TokenEventBounds.Range r : TokenEventBounds.RANGES) {
      int f = names.indexOf(r.field());
      assertEquals(r.min(), TokenEventBounds.MIN[f], r.field());
      assertEquals(r.max(), TokenEventBounds.MAX[f], r.field());
    }
    for (TokenEventBounds.Length l : TokenEventBounds.LENGTHS) {
      assertEquals(l.maxChars(), TokenEventBounds.MAX_CHARS[names.indexOf(l.field())], l.field());
    }
  }

  /** Each bound of the Java declaration, as {@code field/keyword} to its number. */
  private static Map<String, Long> declared() {
    Map<String, Long> bounds = new TreeMap<>();
    for (TokenEventBounds.Range r : TokenEventBounds.RANGES) {
      bounds.put(r.field() + "/minimum", r.min());
      bounds.put(r.field() + "/maximum", r.max());
    }
    for (TokenEventBounds.Length l : TokenEventBounds.LENGTHS) {
      bounds.put(l.field() + "/maxLength", (long) l.maxChars());
    }
    bounds.put("labels/maxProperties", (long) TokenEventBounds.MAX_LABELS);
    bounds.put("labels/propertyNames/maxLength", (long) TokenEventBounds.MAX_LABEL_NAME_CHARS);
    bounds.put(
        "labels/additionalProperties/maxLength", (long) TokenEventBounds.MAX_LABEL_VALUE_CHARS);
    bounds.put("prefixHashes/maxItems", (long) TokenEventBounds.MAX_PREFIX_HASHES);
    bounds.put("prefixHashes/items/minimum", Long.MIN_VALUE);
    bounds.put("prefixHashes/items/maximum", Long.MAX_VALUE);
    for (TokenEventBounds.Range r : EngineBounds.RANGES) {
      bounds.put(schemaPath(r.field()) + "/minimum", r.min());
      bounds.put(schemaPath(r.field()) + "/maximum", r.max());
    }
    for (TokenEventBounds.Length l : EngineBounds.LENGTHS) {
      bounds.put(schemaPath(l.field()) + "/maxLength", (long) l.maxChars());
    }
    for (EngineBounds.Items i : EngineBounds.ITEMS) {
      bounds.put(schemaPath(i.field()) + "/maxItems", (long) i.maxItems());
    }
    return bounds;
  }

  /**
   * Where the schema writes an {@link EngineBounds} field: {@code engine.x} under {@code
   * engine/properties/x}, {@code histogram.x} under {@code $defs/engineHistogram/properties/x}, an
   * item ({@code x[]}) under its array's {@code items}.
   */
  private static String schemaPath(String field) {
    String path = field.endsWith("[]") ? field.substring(0, field.length() - 2) : field;
    int dot = path.indexOf('.');
    String object = path.substring(0, dot);
    String prefix = object.equals("histogram") ? "$defs/engineHistogram" : object;
    return prefix
        + "/properties/"
        + path.substring(dot + 1)
        + (field.endsWith("[]") ? "/items" : "");
  }

  /** Every bounding keyword the schema writes for a field, at any depth, to its number. */
  private static Map<String, Long> written(JsonNode properties) {
    Map<String, Long> bounds = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      collect(field.getKey(), field.getValue(), bounds);
    }
    return bounds;
  }

  private static final List<String> KEYWORDS =
      List.of(
          "minimum",
          "maximum",
          "exclusiveMinimum",
          "exclusiveMaximum",
          "minLength",
          "maxLength",
          "minProperties",
          "maxProperties",
          "minItems",
          "maxItems");

  private static void collect(String path, JsonNode node, Map<String, Long> bounds) {
    if (!node.isObject()) {
      return;
    }
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    for (String name : names) {
      JsonNode value = node.get(name);
      if (KEYWORDS.contains(name)) {
        bounds.put(path + "/" + name, value.longValue());
      } else {
        collect(path + "/" + name, value, bounds);
      }
    }
  }

  @Test
  void whatAWriterTakesFromOutsideIsCutToFitItsField() {
    String said = "e\u0301".repeat(3_000); // what a server said: 6,000 code points
    TokenEvent error =
        TokenEvent.error(
            1_700_000_000_000L, "run", "r1", "m", null, 5, 0, "http_5xx", 500, said, null, "p");
    assertEquals(
        TokenEventBounds.MAX_MESSAGE_CHARS,
        error.message().codePointCount(0, error.message().length()));
    assertEquals("…", error.message().substring(error.message().length() - 1));
    TokenEvent decoded = TokenEventCodec.decode(TokenEventCodec.encode(error));
    assertEquals(error.message(), decoded.message(), "a writer's event passes its own contract");
    assertEquals("stop", TokenEventBounds.fit("stop", 64));
    assertEquals(null, TokenEventBounds.fit(null, 64));
    assertEquals("ab…", TokenEventBounds.fit("abcd", 3));
  }
}
