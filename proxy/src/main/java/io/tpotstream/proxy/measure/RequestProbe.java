package io.tpotstream.proxy.measure;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import io.tpotstream.common.Json;
import io.tpotstream.proxy.prefix.PrefixHashKey;
import io.tpotstream.proxy.prefix.PromptBlocks;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;

/**
 * Reads the facts a measurement needs from a chat request's JSON body as it passes, and nothing
 * else: the top-level {@code model} and whether {@code stream} is true, wherever they are in the
 * body (SDKs often put them after the messages), and, when the proxy captures prefix hashes, the
 * prompt's text handed to {@link PromptBlocks} as each string is read (the messages' roles and text
 * parts, a completion's {@code prompt}, Anthropic's {@code system}). Jackson's non-blocking parser
 * takes each piece of the body as it is forwarded, so the body is never kept (prompts stay private,
 * memory stays small whatever the body's size) and the parsing cost is spread over the reads
 * instead of stalling the event loop once at the end. A body that is not JSON is forwarded all the
 * same.
 */
final class RequestProbe {
  /**
   * What the body said.
   *
   * @param model the top-level {@code model}, or null
   * @param stream true when {@code stream} is true
   * @param whole false when the body could not be read to its end (not JSON, a value too long), so
   *     that a {@code stream} after that point was not seen
   * @param prefix the prompt's block hashes, when captured and the body was read whole and held
   *     text; else null
   */
  record Facts(String model, boolean stream, boolean whole, PromptBlocks.Prefix prefix) {
    Facts(String model, boolean stream, boolean whole) {
      this(model, stream, whole, null);
    }
  }

  /** The most characters of a message's role kept (a role is a word: user, assistant, tool). */
  static final int MAX_ROLE_CHARS = 64;

  /** Containers deeper than this hold no prompt text the probe reads. */
  private static final int DEPTHS = 6;

  private final JsonParser parser;
  private final ByteArrayFeeder feeder;
  private final PromptBlocks blocks;
  private int depth;

  /** The last field name at each depth below {@link #DEPTHS} (1: the top-level object's). */
  private final String[] names = new String[DEPTHS];

  /** Whether the container at each depth is an array. */
  private final boolean[] arrays = new boolean[DEPTHS];

  private String role;
  private String model;
  private boolean stream;
  private boolean broken;
  private boolean ended;

  /** A probe of the model and stream only. */
  RequestProbe() {
    this(null);
  }

  /** A probe that also hashes the prompt's blocks under {@code key} (null: does not). */
  RequestProbe(PrefixHashKey key) {
    blocks = key == null ? null : new PromptBlocks(key);
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
    boolean whole = !broken && ended;
    return new Facts(model, stream, whole, whole && blocks != null ? blocks.finish() : null);
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
        case START_OBJECT, START_ARRAY -> {
          depth++;
          if (depth < DEPTHS) {
            arrays[depth] = t == JsonToken.START_ARRAY;
            names[depth] = null;
          }
          if (inMessage(depth) && t == JsonToken.START_OBJECT) {
            role = null;
          }
        }
        case END_OBJECT, END_ARRAY -> {
          if (blocks != null && inMessage(depth) && t == JsonToken.END_OBJECT) {
            blocks.messageEnd(role);
          }
          depth--;
          ended = depth == 0;
        }
        case FIELD_NAME -> {
          if (depth < DEPTHS) {
            names[depth] = parser.currentName();
          }
        }
        case VALUE_STRING -> {
          if (depth == 1 && "model".equals(names[1])) {
            model = parser.getText();
          } else if (blocks != null) {
            text();
          }
        }
        case VALUE_TRUE, VALUE_FALSE -> {
          if (depth == 1 && "stream".equals(names[1])) {
            stream = t == JsonToken.VALUE_TRUE;
          }
        }
        default -> {
          // numbers, nulls: nothing to learn
        }
      }
    }
  }

  /** Whether the object at {@code d} is a message: an element of the top-level messages list. */
  private boolean inMessage(int d) {
    return d == 3 && "messages".equals(names[1]) && arrays[2] && !arrays[3];
  }

  /** Hands a string of the prompt to the blocks, by where it is in the body; ignores others. */
  private void text() throws IOException {
    String top = names[1];
    if ("messages".equals(top) && depth >= 3 && inMessage(3)) {
      String field = names[3];
      if (depth == 3 && "role".equals(field)) {
        role = parser.getTextLength() <= MAX_ROLE_CHARS ? parser.getText() : cutRole();
      } else if ("content".equals(field)
          && (depth == 3
              || (depth == 4 && arrays[4])
              || (depth == 5 && arrays[4] && !arrays[5] && "text".equals(names[5])))) {
        blocks.messageText(
            parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
      }
    } else if ("system".equals(top)
        && (depth == 1 || (depth == 3 && arrays[2] && !arrays[3] && "text".equals(names[3])))) {
      blocks.systemText(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
    } else if ("prompt".equals(top) && (depth == 1 || (depth == 2 && arrays[2]))) {
      blocks.messageText(
          parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
      blocks.messageEnd(null);
    }
  }

  private String cutRole() throws IOException {
    return new String(parser.getTextCharacters(), parser.getTextOffset(), MAX_ROLE_CHARS);
  }
}
