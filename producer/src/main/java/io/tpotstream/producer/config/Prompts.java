package io.tpotstream.producer.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The conversations requests send, cycled in order: one from {@code prompt}, or one per line of
 * {@code prompts_file} (JSONL: a string, {@code {"prompt": "..."}}, {@code {"messages": [...]}} or
 * a bare array of messages).
 */
public final class Prompts {
  private final List<ArrayNode> conversations;
  private final String source;

  private Prompts(List<ArrayNode> conversations, String source) {
    this.conversations = conversations;
    this.source = source;
  }

  /** One user message with {@code prompt}. */
  public static Prompts single(String prompt) {
    return new Prompts(List.of(userMessage(prompt)), "config key 'prompt'");
  }

  /** Reads a JSONL prompts file. */
  public static Prompts fromFile(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException(
          "config key 'prompts_file': cannot read " + file + " (" + e.getMessage() + ")");
    }
    List<ArrayNode> conversations = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty()) {
        continue;
      }
      JsonNode node;
      try {
        node = Json.MAPPER.readTree(line);
      } catch (IOException e) {
        throw new ConfigException(where(file, i) + "not JSON (expected one prompt per line)");
      }
      conversations.add(conversation(node, file, i));
    }
    if (conversations.isEmpty()) {
      throw new ConfigException("config key 'prompts_file': " + file + " has no prompts");
    }
    return new Prompts(List.copyOf(conversations), file.toString());
  }

  /** The messages of request number {@code index} (0-based), cycling; do not modify. */
  public ArrayNode messages(long index) {
    return conversations.get((int) (index % conversations.size()));
  }

  public int size() {
    return conversations.size();
  }

  /** Where the prompts came from, for output. */
  public String source() {
    return source;
  }

  private static ArrayNode conversation(JsonNode node, Path file, int line) {
    if (node.isTextual()) {
      return userMessage(node.asText());
    }
    if (node.isArray()) {
      return checkedMessages((ArrayNode) node, file, line);
    }
    if (node.isObject() && node.get("messages") instanceof ArrayNode messages) {
      return checkedMessages(messages, file, line);
    }
    if (node.isObject() && node.path("prompt").isTextual()) {
      return userMessage(node.get("prompt").asText());
    }
    throw new ConfigException(
        where(file, line)
            + "expected a string, {\"prompt\": ...}, {\"messages\": [...]} or an array of messages");
  }

  private static ArrayNode checkedMessages(ArrayNode messages, Path file, int line) {
    if (messages.isEmpty()) {
      throw new ConfigException(where(file, line) + "the message list is empty");
    }
    for (JsonNode m : messages) {
      if (!m.isObject() || !m.path("role").isTextual() || m.get("content") == null) {
        throw new ConfigException(
            where(file, line) + "each message needs a \"role\" and a \"content\"");
      }
    }
    return messages;
  }

  private static ArrayNode userMessage(String prompt) {
    ArrayNode messages = JsonNodeFactory.instance.arrayNode();
    ObjectNode user = messages.addObject();
    user.put("role", "user");
    user.put("content", prompt);
    return messages;
  }

  private static String where(Path file, int line) {
    return "config key 'prompts_file': " + file + " line " + (line + 1) + ": ";
  }
}
