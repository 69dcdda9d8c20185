package io.tpotstream.producer.workload;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Json;
import io.tpotstream.producer.config.ConfigException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PushbackReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * Conversations from a dataset file, cycled in order. JSONL (one entry a line; {@code .gz} too), or
 * one JSON array of entries (as ShareGPT is published). An entry is one of:
 *
 * <ul>
 *   <li>{@code {"prompt": "...", "max_tokens": 128}}: one user message ({@code max_tokens}
 *       optional);
 *   <li>{@code {"messages": [{"role": ..., "content": ...}, ...], "max_tokens": 128}}: the messages
 *       sent as they are, in one request;
 *   <li>ShareGPT {@code {"conversations": [{"from": "human", "value": ...}, {"from": "gpt", ...},
 *       ...]}}: a multi-turn session: one request per human turn, sent in order, each carrying the
 *       history so far (the dataset's own earlier turns, so the prompts are the same on every run);
 *   <li>a bare string, or a bare array of messages.
 * </ul>
 *
 * An entry with no user turn (ShareGPT has some) is skipped and counted; anything else the reader
 * cannot use stops it with the line and what to fix.
 */
public final class Dataset implements ConversationSource {
  /** The sample dataset shipped with tpot ({@code --dataset sample}). */
  public static final String SAMPLE = "sample";

  private static final String SAMPLE_RESOURCE = "/io/tpotstream/producer/workload/sample.jsonl";

  private final List<Conversation> conversations;
  private final String source;
  private final int turns;

  private Dataset(List<Conversation> conversations, String source) {
    this.conversations = List.copyOf(conversations);
    this.source = source;
    this.turns = conversations.stream().mapToInt(c -> c.turns().size()).sum();
  }

  /**
   * Reads {@code file} ({@code sample}: the bundled sample dataset, unless a file of that name
   * exists); {@code key} names the option in messages; {@code warnings} gets one line about skipped
   * entries.
   *
   * @throws ConfigException naming the file and line of an entry that cannot be used
   */
  public static Dataset read(String key, Path file, Consumer<String> warnings) {
    if (file.toString().equals(SAMPLE) && !Files.exists(file)) {
      try (InputStream in = Dataset.class.getResourceAsStream(SAMPLE_RESOURCE)) {
        return parse(key, "the sample dataset", in, warnings);
      } catch (IOException e) {
        throw new ConfigException(key + ": cannot read the sample dataset: " + e.getMessage());
      }
    }
    try (InputStream in = open(file)) {
      return parse(key, file.toString(), in, warnings);
    } catch (NoSuchFileException e) {
      throw new ConfigException(key + ": " + file + " not found: check the path");
    } catch (IOException e) {
      throw new ConfigException(key + ": cannot read " + file + " (" + e.getMessage() + ")");
    }
  }

  /** Reads entries from {@code in} (JSONL or one JSON array); {@code name} is for messages. */
  static Dataset parse(String key, String name, InputStream in, Consumer<String> warnings)
      throws IOException {
    List<Conversation> conversations = new ArrayList<>();
    int[] skipped = {0};
    PushbackReader reader =
        new PushbackReader(
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8), 1 << 16));
    int first = firstNonBlank(reader);
    if (first == '[') {
      readArray(key, name, reader, conversations, skipped);
    } else {
      readLines(key, name, new BufferedReader(reader), conversations, skipped);
    }
    if (skipped[0] > 0) {
      warnings.accept(
          key + ": " + name + ": " + skipped[0] + " entries without a user turn were skipped");
    }
    if (conversations.isEmpty()) {
      throw new ConfigException(key + ": " + name + " has no usable entries");
    }
    return new Dataset(conversations, name);
  }

  private static int firstNonBlank(PushbackReader reader) throws IOException {
    int c;
    do {
      c = reader.read();
    } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\uFEFF');
    if (c >= 0) {
      reader.unread(c);
    }
    return c;
  }

  private static void readLines(
      String key,
      String name,
      BufferedReader reader,
      List<Conversation> conversations,
      int[] skipped)
      throws IOException {
    String text;
    int line = 0;
    while ((text = reader.readLine()) != null) {
      line++;
      if (text.isBlank()) {
        continue;
      }
      JsonNode node;
      try {
        node = Json.MAPPER.readTree(text);
      } catch (IOException e) {
        throw new ConfigException(
            where(key, name, line) + "not JSON (expected one entry per line, JSONL)");
      }
      add(conversation(node, where(key, name, line)), conversations, skipped);
    }
  }

  private static void readArray(
      String key, String name, Reader reader, List<Conversation> conversations, int[] skipped)
      throws IOException {
    try (JsonParser parser = Json.MAPPER.createParser(reader)) {
      parser.nextToken(); // [
      int index = 0;
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        if (parser.currentToken() == null) {
          throw new ConfigException(key + ": " + name + ": the JSON array is not closed");
        }
        JsonNode node = Json.MAPPER.readTree(parser);
        add(
            conversation(node, key + ": " + name + " entry " + index + ": "),
            conversations,
            skipped);
        index++;
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new ConfigException(
          key + ": " + name + " is not valid JSON: " + e.getOriginalMessage());
    }
  }

  private static void add(Conversation c, List<Conversation> conversations, int[] skipped) {
    if (c == null) {
      skipped[0]++;
    } else {
      conversations.add(c);
    }
  }

  /** The conversation of one entry, or null for an entry with no user turn. */
  static Conversation conversation(JsonNode node, String where) {
    if (node.isTextual()) {
      return single(userMessage(node.asText()), null);
    }
    if (node instanceof ArrayNode messages) {
      return single(checkedMessages(messages, where), null);
    }
    if (node instanceof ObjectNode entry) {
      Integer maxTokens = maxTokens(entry, where);
      if (entry.get("conversations") instanceof ArrayNode turns) {
        return shareGpt(turns, maxTokens, where);
      }
      if (entry.get("messages") instanceof ArrayNode messages) {
        return single(checkedMessages(messages, where), maxTokens);
      }
      if (entry.path("prompt").isTextual()) {
        return single(userMessage(entry.get("prompt").asText()), maxTokens);
      }
    }
    throw new ConfigException(
        where
            + "expected {\"prompt\": ...}, {\"messages\": [...]}, ShareGPT {\"conversations\":"
            + " [...]}, a string or an array of messages");
  }

  private static Conversation single(ArrayNode messages, Integer maxTokens) {
    return Conversation.of(new Turn(messages, maxTokens, InputLength.estimate(messages)));
  }

  private static Conversation shareGpt(ArrayNode turns, Integer maxTokens, String where) {
    List<JsonNode> history = new ArrayList<>();
    List<Turn> requests = new ArrayList<>();
    for (JsonNode t : turns) {
      JsonNode from = t.has("from") ? t.get("from") : t.get("role");
      JsonNode value = t.has("value") ? t.get("value") : t.get("content");
      if (from == null || !from.isTextual() || value == null || !value.isTextual()) {
        throw new ConfigException(
            where + "each ShareGPT turn needs \"from\" and \"value\" strings, got " + t);
      }
      String role = role(from.asText(), where);
      ObjectNode message = JsonNodeFactory.instance.objectNode();
      message.put("role", role);
      message.put("content", value.asText());
      history.add(message);
      if (role.equals("user")) {
        // each turn's list shares the message objects of the turns before it
        ArrayNode sent = JsonNodeFactory.instance.arrayNode(history.size());
        sent.addAll(history);
        requests.add(new Turn(sent, maxTokens, InputLength.estimate(sent)));
      }
    }
    return requests.isEmpty() ? null : new Conversation(requests);
  }

  private static String role(String from, String where) {
    return switch (from.toLowerCase(Locale.ROOT)) {
      case "human", "user" -> "user";
      case "gpt", "assistant", "chatgpt", "bard", "bing", "model" -> "assistant";
      case "system" -> "system";
      default ->
          throw new ConfigException(
              where + "unknown ShareGPT speaker '" + from + "' (expected human, gpt or system)");
    };
  }

  private static Integer maxTokens(ObjectNode entry, String where) {
    JsonNode n = entry.get("max_tokens");
    if (n == null || n.isNull()) {
      return null;
    }
    if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 1) {
      throw new ConfigException(where + "\"max_tokens\" must be a positive integer, got " + n);
    }
    return n.asInt();
  }

  private static ArrayNode checkedMessages(ArrayNode messages, String where) {
    if (messages.isEmpty()) {
      throw new ConfigException(where + "the message list is empty");
    }
    for (JsonNode m : messages) {
      if (!m.isObject() || !m.path("role").isTextual() || m.get("content") == null) {
        throw new ConfigException(where + "each message needs a \"role\" and a \"content\"");
      }
    }
    return messages;
  }

  static ArrayNode userMessage(String prompt) {
    ArrayNode messages = JsonNodeFactory.instance.arrayNode();
    ObjectNode user = messages.addObject();
    user.put("role", "user");
    user.put("content", prompt);
    return messages;
  }

  private static InputStream open(Path file) throws IOException {
    InputStream in = Files.newInputStream(file);
    return file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(in, 1 << 16) : in;
  }

  private static String where(String key, String name, int line) {
    return key + ": " + name + " line " + line + ": ";
  }

  @Override
  public Conversation get(long n) {
    return conversations.get((int) (n % conversations.size()));
  }

  /** Conversations in the file. */
  public int size() {
    return conversations.size();
  }

  /** Requests in one pass over the file (a conversation's turns each count). */
  public int turns() {
    return turns;
  }

  @Override
  public String describe() {
    return source + " (" + size() + " conversations, " + turns + " turns)";
  }

  @Override
  public boolean labelsInputLength() {
    return true;
  }
}
