package io.tpotstream.producer.dialect;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.IOException;

/**
 * What both dialects do with an event's data before reading its fields: parse it as one JSON object
 * with the thread's reused {@link ChunkParser}, read the fields the dialect needs ({@link
 * #readObject}), and keep the {@code error} member when one was seen. Data that is not JSON, or not
 * an object, becomes the chunk that says so; an {@code error} SSE event that is not JSON fails the
 * request.
 */
abstract class JsonChunkReader implements StreamReader {
  /** The data's {@code error} member, when {@link #errorSeen} was set while reading; else null. */
  JsonNode error;

  /** Set by {@link #readObject} when the object has a non-null {@code error} member. */
  boolean errorSeen;

  // what the stream reported so far: the dialect's reader keeps them up to date
  Integer promptTokens;
  Integer cachedTokens;
  Integer completionTokens;
  String finishReason;

  /** Reads the fields of one object; the parser is at its {@code START_OBJECT}. */
  abstract void readObject(JsonParser p) throws IOException;

  /**
   * Parses {@code data} and reads it; null when it was a JSON object (its fields read), else the
   * chunk saying why not.
   */
  final Chunk parse(String event, byte[] data, int offset, int length) {
    error = null;
    errorSeen = false;
    boolean object;
    try {
      ChunkParser chunks = ChunkParser.get();
      JsonParser p = chunks.start(data, offset, length);
      object = p != null && p.currentToken() == JsonToken.START_OBJECT;
      if (object) {
        readObject(p);
        chunks.end();
      } else if (p != null) {
        // as a tree would: the whole value must be readable JSON
        ChunkParser.skip(p);
      }
      if (errorSeen) {
        error = Json.MAPPER.readTree(data, offset, length).get("error");
      }
    } catch (IOException e) {
      if ("error".equals(event)) {
        return new Chunk.Failed(
            "error event in the stream: " + Dialect.preview(data, offset, length));
      }
      return new Chunk.Malformed("not JSON: " + Dialect.preview(data, offset, length));
    }
    if (!object) {
      return new Chunk.Malformed("not a JSON object: " + Dialect.preview(data, offset, length));
    }
    return null;
  }

  /** Reads the value of an {@code error} member: kept to be read again as a tree, if not null. */
  void readError(JsonParser p, JsonToken value) throws IOException {
    // rare: read again as a tree once the chunk is known to be whole
    errorSeen = value != JsonToken.VALUE_NULL;
    ChunkParser.skip(p);
  }

  static boolean nonEmptyString(JsonParser p, JsonToken value) throws IOException {
    if (value == JsonToken.VALUE_STRING) {
      return p.getTextLength() > 0;
    }
    ChunkParser.skip(p);
    return false;
  }

  /** An int value (as a tree's canConvertToInt/asInt would read it), or null. */
  static Integer intValue(JsonParser p, JsonToken value) throws IOException {
    if (value == JsonToken.VALUE_NUMBER_INT) {
      long v = p.getLongValue();
      return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? (int) v : null;
    }
    if (value == JsonToken.VALUE_NUMBER_FLOAT) {
      double v = p.getDoubleValue();
      return v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE ? (int) v : null;
    }
    ChunkParser.skip(p);
    return null;
  }

  static String errorText(JsonNode error) {
    if (error.isTextual()) {
      return Dialect.preview(error.asText());
    }
    JsonNode message = error.get("message");
    String text = message != null && message.isTextual() ? message.asText() : error.toString();
    JsonNode type = error.get("type");
    if (type == null || !type.isTextual()) {
      type = error.get("code");
    }
    return Dialect.preview(
        type != null && type.isValueNode() && !type.isNull() ? type.asText() + ": " + text : text);
  }

  @Override
  public final Integer promptTokens() {
    return promptTokens;
  }

  @Override
  public final Integer cachedTokens() {
    return cachedTokens;
  }

  @Override
  public final Integer completionTokens() {
    return completionTokens;
  }

  @Override
  public final String finishReason() {
    return finishReason;
  }
}
