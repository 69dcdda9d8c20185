package io.tpotstream.proxy.measure;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import io.tpotstream.common.Json;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;

/**
 * Reads the two facts a measurement needs from a chat request's JSON body as it passes, and nothing
 * else: the top-level {@code model} and whether {@code stream} is true, wherever they are in the
 * body (SDKs often put them after the messages). Jackson's non-blocking parser takes each piece of
 * the body as it is forwarded, so the body is never kept (prompts stay private, memory stays small
 * whatever the body's size) and the parsing cost is spread over the reads instead of stalling the
 * event loop once at the end. A body that is not JSON is forwarded all the same.
 */
final class RequestProbe {
  /**
   * What the body said.
   *
   * @param model the top-level {@code model}, or null
   * @param stream true when {@code stream} is true
   * @param whole false when the body could not be read to its end (not JSON, a value too long), so
   *     that a {@code stream} after that point was not seen
   */
  record Facts(String model, boolean stream, boolean whole) {}

  private final JsonParser parser;
  private final ByteArrayFeeder feeder;
  private int depth;
  private String field;
  private String model;
  private boolean stream;
  private boolean broken;
  private boolean ended;

  RequestProbe() {
    JsonParser p;
    try {
      p = Json.MAPPER.getFactory().createNonBlockingByteArrayParser();
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a JSON parser", e);
    }
    parser = p;
    feeder = (ByteArrayFeeder) p.getNonBlockingInputFeeder();
  }

  void feed(Buffer chunk) {
    if (broken || ended) {
      return;
    }
    byte[] bytes = chunk.getBytes();
    try {
      feeder.feedInput(bytes, 0, bytes.length);
      drain();
    } catch (IOException | RuntimeException e) {
      broken = true;
    }
  }

  /** The facts, once the body is complete; the parser is released. */
  Facts read() {
    if (!broken && !ended) {
      try {
        feeder.endOfInput();
        drain();
      } catch (IOException | RuntimeException e) {
        broken = true;
      }
    }
    try {
      parser.close();
    } catch (IOException e) {
      // nothing held
    }
    return new Facts(model, stream, !broken && ended);
  }

  private void drain() throws IOException {
    JsonToken t;
    while (!ended && (t = parser.nextToken()) != null && t != JsonToken.NOT_AVAILABLE) {
      if (depth == 0 && t != JsonToken.START_OBJECT) {
        // a top-level value that is not an object: not a chat request
        broken = true;
        return;
      }
      switch (t) {
        case START_OBJECT, START_ARRAY -> depth++;
        case END_OBJECT, END_ARRAY -> {
          depth--;
          ended = depth == 0;
        }
        case FIELD_NAME -> {
          if (depth == 1) {
            field = parser.currentName();
          }
        }
        case VALUE_STRING -> {
          if (depth == 1 && "model".equals(field)) {
            model = parser.getText();
          }
        }
        case VALUE_TRUE, VALUE_FALSE -> {
          if (depth == 1 && "stream".equals(field)) {
            stream = t == JsonToken.VALUE_TRUE;
          }
        }
        default -> {
          // numbers, nulls: nothing to learn
        }
      }
    }
  }
}
