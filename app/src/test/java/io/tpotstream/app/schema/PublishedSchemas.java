package io.tpotstream.app.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.tpotstream.app.deploy.DeployFiles;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One JSON Schema of {@code docs/schemas} as the tests hold records to it: {@link #problems} by the
 * schema as published (open objects), {@link #undocumented} by the same schema with every object
 * that says {@code "additionalProperties": true} closed, which finds a field a record carries and
 * the schema does not describe.
 */
final class PublishedSchemas {
  static final Path DIR = DeployFiles.ROOT.resolve("docs/schemas");
  static final String TOKEN_EVENT = "token-event.v1.schema.json";
  static final String WINDOW_SUMMARY = "window-summary.v1.schema.json";
  static final String METRICS_RECORD = "metrics-record.v1.schema.json";
  static final String DEAD_LETTER_HEADERS = "dead-letter-headers.v1.schema.json";
  static final List<String> ALL =
      List.of(TOKEN_EVENT, WINDOW_SUMMARY, METRICS_RECORD, DEAD_LETTER_HEADERS);

  private static final SchemaRegistry REGISTRY =
      SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

  final JsonNode text;
  private final Schema open;
  private final Schema closed;

  private PublishedSchemas(JsonNode text) {
    this.text = text;
    this.open = REGISTRY.getSchema(text.deepCopy());
    JsonNode closedText = text.deepCopy();
    close(closedText);
    this.closed = REGISTRY.getSchema(closedText);
  }

  /** The schema in {@code docs/schemas/<file>}. */
  static PublishedSchemas load(String file) {
    try {
      return new PublishedSchemas(Json.MAPPER.readTree(Files.readString(DIR.resolve(file))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What makes {@code record} invalid, one line each; empty when it is valid. */
  List<String> problems(JsonNode record) {
    return open.validate(record).stream().map(Object::toString).toList();
  }

  /** {@link #problems}, plus every field the schema does not describe. */
  List<String> undocumented(JsonNode record) {
    return closed.validate(record).stream().map(Object::toString).toList();
  }

  /** {@link #problems} of a JSON text. */
  List<String> problems(String json) {
    try {
      return problems(Json.MAPPER.readTree(json));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Kafka headers as the dead-letter schema sees them: name to UTF-8 value, the last one wins. */
  static JsonNode headers(Map<String, String> headers) {
    ObjectNode node = Json.MAPPER.createObjectNode();
    headers.forEach(node::put);
    return node;
  }

  private static void close(JsonNode node) {
    if (node instanceof ObjectNode object
        && object.path("additionalProperties").equals(BooleanNode.TRUE)) {
      object.put("additionalProperties", false);
    }
    node.forEach(PublishedSchemas::close);
  }
}
