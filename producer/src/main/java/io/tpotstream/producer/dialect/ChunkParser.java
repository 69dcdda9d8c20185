package io.tpotstream.producer.dialect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import io.tpotstream.common.Json;
import java.io.IOException;

/**
 * One Jackson streaming parser per thread, reused for every chunk instead of a new parser (and its
 * context, buffers and symbol table, about 1.4 KB) per chunk: Jackson's non-blocking parser is fed
 * each chunk's bytes in turn, as a sequence of root values. A chunk that is cut short, not an
 * object, or followed by more than whitespace makes the next chunk start on a fresh parser.
 */
final class ChunkParser {
  private static final JsonFactory JSON = Json.MAPPER.getFactory();
  private static final byte[] SPACE = {' '};
  private static final ThreadLocal<ChunkParser> PER_THREAD =
      ThreadLocal.withInitial(ChunkParser::new);

  private JsonParser parser;
  private boolean dirty;

  private ChunkParser() {}

  /** This thread's parser. */
  static ChunkParser get() {
    return PER_THREAD.get();
  }

  /**
   * Starts reading {@code length} bytes from {@code offset}; returns the parser positioned on the
   * chunk's first token (null when the chunk is empty). Call {@link #end} when done with it.
   */
  JsonParser start(byte[] data, int offset, int length) throws IOException {
    if (parser == null || dirty) {
      if (parser != null) {
        parser.close();
      }
      parser = JSON.createNonBlockingByteArrayParser();
      dirty = false;
    }
    ByteArrayFeeder feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
    // until the chunk has been read through, the parser is in an unknown state
    dirty = true;
    feeder.feedInput(data, offset, offset + length);
    JsonToken first = parser.nextToken();
    if (first == JsonToken.NOT_AVAILABLE) {
      // a lone scalar ("42") needs a delimiter to end; an empty chunk stays NOT_AVAILABLE
      feeder.feedInput(SPACE, 0, 1);
      first = parser.nextToken();
      if (first == JsonToken.NOT_AVAILABLE) {
        return null;
      }
    }
    return parser;
  }

  /** The next token of the chunk; a chunk that ends inside a value fails as not JSON. */
  static JsonToken next(JsonParser p) throws IOException {
    JsonToken t = p.nextToken();
    if (t == null || t == JsonToken.NOT_AVAILABLE) {
      throw new JsonParseException(p, "the chunk ends inside a JSON value");
    }
    return t;
  }

  /** Skips the value the parser is on (a whole object or array), within the chunk. */
  static void skip(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    if (t != JsonToken.START_OBJECT && t != JsonToken.START_ARRAY) {
      return;
    }
    int open = 1;
    while (open > 0) {
      JsonToken n = next(p);
      if (n.isStructStart()) {
        open++;
      } else if (n.isStructEnd()) {
        open--;
      }
    }
  }

  /**
   * Ends a chunk read from its first to its last token: the parser is kept when nothing but
   * whitespace followed the value.
   */
  void end() throws IOException {
    dirty = parser.nextToken() != JsonToken.NOT_AVAILABLE;
  }
}
