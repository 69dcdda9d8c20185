package io.tpotstream.common.event;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** JSON encoding of token events: fields in a fixed order, absent fields omitted. */
public final class TokenEventCodec {
  private static final ObjectWriter WRITER = Json.MAPPER.writerFor(TokenEvent.class);
  private static final ObjectReader READER = Json.MAPPER.readerFor(TokenEvent.class);

  private TokenEventCodec() {}

  public static byte[] encode(TokenEvent event) {
    try {
      return WRITER.writeValueAsBytes(event);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode token event " + event, e);
    }
  }

  public static String encodeToString(TokenEvent event) {
    return new String(encode(event), StandardCharsets.UTF_8);
  }

  /**
   * Decodes and validates one event.
   *
   * @throws TokenEventFormatException when the bytes are not JSON, not an object of the v1 format
   *     ({@code v} other than 1), miss a field their type requires, or carry a negative {@code
   *     seq}, {@code tokens} or {@code elapsedNs}
   */
  public static TokenEvent decode(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      throw new TokenEventFormatException(
          "empty record: expected a token event (JSON object)", null);
    }
    TokenEvent event;
    try {
      event = READER.readValue(bytes);
    } catch (IOException e) {
      throw new TokenEventFormatException(
          "not a token event: " + firstLine(getOriginalMessageOf(e)) + " in " + preview(bytes), e);
    }
    validate(event, bytes);
    return event;
  }

  public static TokenEvent decode(String json) {
    return decode(json.getBytes(StandardCharsets.UTF_8));
  }

  private static void validate(TokenEvent e, byte[] bytes) {
    String problem = TokenEventRules.problem(e);
    if (problem != null) {
      throw new TokenEventFormatException(
          "not a token event: " + problem + " in " + preview(bytes), null);
    }
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable JSON";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  static String preview(byte[] bytes) {
    String text = new String(bytes, 0, Math.min(bytes.length, 120), StandardCharsets.UTF_8);
    return "'" + text + (bytes.length > 120 ? "…'" : "'");
  }

  // Jackson's getOriginalMessage lives on JsonProcessingException; other IOExceptions keep theirs.
  private static String getOriginalMessageOf(IOException e) {
    return e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
  }
}
