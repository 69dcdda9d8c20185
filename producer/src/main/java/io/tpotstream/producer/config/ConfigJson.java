package io.tpotstream.producer.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The producer's config as one JSON object, before it is bound: the file (or an empty object) with
 * the {@code key=value} overrides of the command line set into it. Also the one reader of any JSON
 * file a config names (an engine mapping file).
 */
public final class ConfigJson {
  private ConfigJson() {}

  /** {@code file}'s object (an empty one when there is no file) with {@code overrides} applied. */
  static ObjectNode read(Path file, Map<String, String> overrides) {
    ObjectNode root = file == null ? JsonNodeFactory.instance.objectNode() : readFile(file);
    applyOverrides(root, overrides);
    return root;
  }

  /** Reads a config file into a JSON object. */
  private static ObjectNode readFile(Path file) {
    if (!Files.isRegularFile(file)) {
      throw new ConfigException("config file " + file + " not found: check --config");
    }
    return readObject(file, "config file " + file);
  }

  /**
   * The JSON object {@code file} holds; {@code where} names the file in messages (e.g. {@code
   * config file x.json}).
   *
   * @throws ConfigException in one line: not valid JSON (with its line and column), unreadable, or
   *     not one object
   */
  public static ObjectNode readObject(Path file, String where) {
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(file.toFile());
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new ConfigException(
          where
              + " is not valid JSON"
              + (at == null || at.getLineNr() < 1
                  ? ""
                  : " at line " + at.getLineNr() + ", column " + at.getColumnNr())
              + ": "
              + firstLine(e.getOriginalMessage()));
    } catch (IOException e) {
      throw new ConfigException("cannot read " + where + ": " + e.getMessage());
    }
    if (!(node instanceof ObjectNode object)) {
      throw new ConfigException(where + " must hold one JSON object");
    }
    return object;
  }

  /** Sets {@code key=value} pairs into {@code root}; dotted keys reach into objects. */
  private static void applyOverrides(ObjectNode root, Map<String, String> overrides) {
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      String[] path = e.getKey().trim().split("\\.");
      ObjectNode target = root;
      for (int i = 0; i < path.length - 1; i++) {
        JsonNode child = target.get(path[i]);
        if (!(child instanceof ObjectNode)) {
          child = target.putObject(path[i]);
        }
        target = (ObjectNode) child;
      }
      target.set(path[path.length - 1], overrideValue(e.getValue()));
    }
  }

  private static JsonNode overrideValue(String text) {
    String t = text.trim();
    if (t.startsWith("{") || t.startsWith("[") || t.startsWith("\"") || looksScalar(t)) {
      try {
        return Json.MAPPER.readTree(t);
      } catch (IOException e) {
        return TextNode.valueOf(text);
      }
    }
    return TextNode.valueOf(text);
  }

  private static boolean looksScalar(String t) {
    return t.equals("true")
        || t.equals("false")
        || t.equals("null")
        || t.matches("-?\\d+(\\.\\d+)?([eE][-+]?\\d+)?");
  }

  /** The first line of a parser's message (the rest is its stack of positions). */
  static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
