package io.tpotstream.common.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.cfg.MutableCoercionConfig;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** JSON encoding of token events: fields in a fixed order, absent fields omitted. */
public final class TokenEventCodec {
  private static final ObjectWriter WRITER = Json.MAPPER.writerFor(TokenEvent.class);
  private static final ObjectReader READER =
      strict(Json.MAPPER)
          .readerFor(TokenEvent.class)
          .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /**
   * The mapper with none of data binding's scalar coercions: an integer field takes a JSON integer
   * only (not {@code 1.5}, silently 1, nor {@code "1"}, {@code ""} or {@code true}), a decimal
   * field (an engine's gauges) a JSON number only, a flag {@code true} or {@code false} only, a
   * text field a JSON string only. What a producer writes is read alike; the rest is refused rather
   * than bent into a value the fast readers would never see.
   */
  private static ObjectMapper strict(ObjectMapper mapper) {
    ObjectMapper strict = mapper.copy().disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Boolean}) {
      MutableCoercionConfig config = strict.coercionConfigFor(type);
      for (CoercionInputShape shape : CoercionInputShape.values()) {
        config.setCoercion(shape, CoercionAction.Fail);
      }
    }
    MutableCoercionConfig decimal = strict.coercionConfigFor(LogicalType.Float);
    for (CoercionInputShape shape : CoercionInputShape.values()) {
      if (shape != CoercionInputShape.Integer && shape != CoercionInputShape.Float) {
        decimal.setCoercion(shape, CoercionAction.Fail);
      }
    }
    strict
        .coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    return strict;
  }

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
   * Decodes and validates one event; an {@code errorClass} outside {@link ErrorClasses#KNOWN} is
   * read as {@link ErrorClasses#OTHER}.
   *
   * @throws TokenEventFormatException when the bytes are not JSON, not an object of the v1 format
   *     ({@code v} other than 1, a field of another JSON type, a field written twice, a label
   *     without a string value), miss a field their type requires, or carry a value outside its
   *     {@link TokenEventBounds} ({@link TokenEventRules})
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
          "not a token event: "
              + fieldOf(e)
              + firstLine(getOriginalMessageOf(e))
              + " in "
              + preview(bytes),
          e);
    }
    validate(event, bytes);
    return event.withKnownErrorClass();
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

  /**
   * The field data binding could not read, as {@code "seq: "} (one of the event's own names, so
   * short), or nothing when the failure is not a field's (not JSON, a repeated field). Inside the
   * objects {@code engine} and {@code engineTiming}, its path: {@code "engine.tpot.counts[2]: "}.
   */
  private static String fieldOf(IOException e) {
    if (!(e instanceof JsonMappingException m)
        || m.getPath().isEmpty()
        || m.getPath().get(0).getFieldName() == null) {
      return "";
    }
    String top = m.getPath().get(0).getFieldName();
    if (!top.equals("engine") && !top.equals("engineTiming")) {
      return top + ": ";
    }
    StringBuilder path = new StringBuilder(top);
    for (JsonMappingException.Reference r : m.getPath().subList(1, m.getPath().size())) {
      if (r.getFieldName() != null) {
        path.append('.').append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    return path.append(": ").toString();
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
