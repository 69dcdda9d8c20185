package io.tpotstream.producer.dialect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.producer.config.ApiKind;
import io.tpotstream.producer.config.ProducerConfig;
import java.util.Iterator;
import java.util.Map;
import java.util.function.BiConsumer;

/** How one API wants its streaming requests and how its streams read. */
public interface Dialect {
  /** The request body for {@code model} and {@code messages}, with {@code extra_body} merged. */
  default ObjectNode requestBody(String model, ArrayNode messages, ProducerConfig config) {
    return requestBody(model, messages, config.maxTokens(), config);
  }

  /**
   * The request body with {@code maxTokens} (a dataset's or synthetic output length; null: none)
   * instead of the config's, {@code extra_body} merged last.
   */
  ObjectNode requestBody(
      String model, ArrayNode messages, Integer maxTokens, ProducerConfig config);

  /** Adds the authentication and version headers. */
  void authHeaders(ProducerConfig config, BiConsumer<String, String> header);

  /** A reader for one response stream. */
  StreamReader newReader();

  /** The dialect of {@code api}. */
  static Dialect of(ApiKind api) {
    return api == ApiKind.ANTHROPIC ? new AnthropicDialect() : new OpenAiDialect();
  }

  /**
   * Deep-merges {@code extra} into {@code body}: objects merge, other values replace, JSON null
   * removes the key.
   */
  static void merge(ObjectNode body, ObjectNode extra) {
    if (extra == null) {
      return;
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = extra.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode value = e.getValue();
      if (value.isNull()) {
        body.remove(e.getKey());
      } else if (value instanceof ObjectNode obj
          && body.get(e.getKey()) instanceof ObjectNode into) {
        merge(into, obj);
      } else {
        body.set(e.getKey(), value.deepCopy());
      }
    }
  }

  /** The first 200 characters of {@code length} UTF-8 bytes from {@code offset}, for messages. */
  static String preview(byte[] data, int offset, int length) {
    return preview(
        new String(data, offset, Math.min(length, 800), java.nio.charset.StandardCharsets.UTF_8));
  }

  /** The first 200 characters of {@code text}, for messages. */
  static String preview(String text) {
    String oneLine = text.replace('\n', ' ').replace('\r', ' ');
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "…";
  }

  /**
   * True when {@code length} bytes from {@code offset} are {@code [DONE]} (the OpenAI stream's
   * terminator), whitespace aside.
   */
  static boolean isDone(byte[] data, int offset, int length) {
    int from = offset;
    int to = offset + length;
    while (from < to && (data[from] & 0xff) <= ' ') {
      from++;
    }
    while (to > from && (data[to - 1] & 0xff) <= ' ') {
      to--;
    }
    return to - from == 6
        && data[from] == '['
        && data[from + 1] == 'D'
        && data[from + 2] == 'O'
        && data[from + 3] == 'N'
        && data[from + 4] == 'E'
        && data[from + 5] == ']';
  }
}
