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
}
