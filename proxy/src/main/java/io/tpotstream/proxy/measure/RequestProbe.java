package io.tpotstream.proxy.measure;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.tpotstream.common.Json;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;

/**
 * Reads the two facts a measurement needs from a chat request's JSON body, and nothing else: the
 * top-level {@code model} and whether {@code stream} is true. The body is kept only until it is
 * complete and read (never logged, never published: prompts stay private), and only up to {@link
 * #LIMIT} bytes; a longer body is forwarded all the same, and read as far as it was kept.
 */
final class RequestProbe {
  /** The most body bytes kept for reading. */
  static final int LIMIT = 4 * 1024 * 1024;

  /**
   * What the body said.
   *
   * @param model the top-level {@code model}, or null
   * @param stream true when {@code stream} is true
   * @param whole false when the body passed the limit, so that a {@code stream} after it was not
   *     seen
   */
  record Facts(String model, boolean stream, boolean whole) {}

  private Buffer body = Buffer.buffer();
  private boolean overflow;

  void feed(Buffer chunk) {
    if (overflow) {
      return;
    }
    if (body.length() + chunk.length() > LIMIT) {
      overflow = true;
      return;
    }
    body.appendBuffer(chunk);
  }

  /** Reads the body fed so far and forgets it. */
  Facts read() {
    byte[] bytes = body.getBytes();
    body = null;
    String model = null;
    boolean stream = false;
    try (JsonParser p = Json.MAPPER.getFactory().createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return new Facts(null, false, !overflow);
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("model".equals(name) && value == JsonToken.VALUE_STRING) {
          model = p.getText();
        } else if ("stream".equals(name)) {
          stream = value == JsonToken.VALUE_TRUE;
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException e) {
      // a body cut at the limit or not JSON: keep what was read before the error
    }
    return new Facts(model, stream, !overflow);
  }
}
