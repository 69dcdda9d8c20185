package io.tpotstream.common.event;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.SerializedString;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reads token events for the aggregator, offline {@code stats} and replay: one pass over the
 * record, no event object, the request id taken from the record's key when the event's own id
 * equals it, and the model and labels read only when {@link DecodedEvent#model()} or {@link
 * DecodedEvent#labels()} asks (when a request starts). The compact form producers write is read by
 * {@link CompactScanner} (a few byte comparisons per field); any other valid JSON by Jackson's
 * streaming parser.
 *
 * <p>It accepts and rejects exactly what {@link TokenEventCodec#decode} does, with the same
 * messages: whatever this parser is not sure of (a rejected record, a value of another JSON type, a
 * negative count, a repeated field or label, a null, a field it does not know) is handed to that
 * decoder, whose verdict stands. A property test over generated and mutated records holds the two
 * to it, every field of every type of event ({@code TokenEventDecoderTest}).
 *
 * <p>Strings it does not need are skipped, not decoded: Jackson checks their UTF-8 and escapes
 * while skipping exactly as while decoding (a string over Jackson's 20 M-character limit, which no
 * Kafka record reaches, would be the only difference).
 *
 * <p>Not thread-safe: one per thread; the returned event is reused by the next call.
 */
public final class TokenEventDecoder {
  private static final JsonFactory FACTORY = Json.MAPPER.getFactory();

  private static final char[][] TYPES = {
    "start".toCharArray(),
    "token".toCharArray(),
    "end".toCharArray(),
    "error".toCharArray(),
    "heartbeat".toCharArray()
  };
  private static final EventType[] TYPE_VALUES = {
    EventType.START, EventType.TOKEN, EventType.END, EventType.ERROR, EventType.HEARTBEAT
  };
  private static final char[][] KINDS = {
    "content".toCharArray(), "reasoning".toCharArray(), "tool".toCharArray()
  };

  // the token event's fields, by position in docs/design.md's order (a bit each, to see repeats)
  static final int TYPE = 0;
  static final int V = 1;
  static final int TS = 2;
  static final int RUN_ID = 3;
  static final int REQUEST_ID = 4;
  static final int MODEL = 5;
  static final int LABELS = 6;
  static final int ELAPSED_NS = 7;
  static final int SEQ = 8;
  static final int TOKENS = 9;
  static final int KIND = 10;
  static final int PROMPT_TOKENS = 11;
  static final int COMPLETION_TOKENS = 12;
  static final int FINISH_REASON = 13;
  static final int ERROR_CLASS = 14;
  static final int HTTP_STATUS = 15;
  static final int MESSAGE = 16;
  static final int SCHEDULE_LAG_NS = 17;
  static final int MALFORMED_CHUNKS = 18;
  static final int PRODUCER_ID = 19;
  static final int WATERMARK = 20;
  static final int FINAL = 21;
  static final int CLIENT_PAUSE_MAX_US = 22;
  static final int LOOP_LAG_MAX_US = 23;
  static final int COALESCED_CHUNKS = 24;
  static final int COALESCED = 25;
  static final int WARMUP = 26;
  static final int SOURCE = 27;
  static final int DROPPED_EVENTS = 28;
  static final int CLIENT_LAG_US = 29;
  private static final int UNKNOWN = -1;

  /**
   * The field names in the design's order (producers write them so), by field index: {@link
   * TokenEvent}'s order. Fields no statistic reads ({@code droppedEvents}, {@code message}, …) are
   * checked, not kept.
   */
  static final String[] FIELD_NAMES = Arrays.copyOf(TokenEvent.fieldNames(), CLIENT_LAG_US + 1);

  /** The same names for Jackson, which matches an expected name as bytes. */
  private static final SerializedString[] NAMES =
      Arrays.stream(FIELD_NAMES).map(SerializedString::new).toArray(SerializedString[]::new);

  private final DecodedEvent event = new DecodedEvent();

  /**
   * The field that followed each field in the last record (index {@link #NAMES}.length: the first),
   * so that a producer's order, whichever fields it omits, is matched as bytes.
   */
  private final int[] follows = new int[NAMES.length + 1];

  /** The label names of the last record, in its order (matched as bytes too). */
  private SerializedString[] labelNames = new SerializedString[0];

  private final CompactScanner scanner = new CompactScanner();

  /** Records the compact scanner read. */
  long scanned;

  /** Records accepted in the single streaming pass (the rest went through data binding). */
  long streamed;

  public TokenEventDecoder() {
    for (int f = 0; f < NAMES.length; f++) {
      follows[f] = f + 1;
    }
    follows[NAMES.length] = 0;
  }

  /**
   * Decodes one record's value.
   *
   * @param key the record's key (the request id as the producer keys it), or null
   * @throws TokenEventFormatException when the value is not a valid v1 token event, with {@link
   *     TokenEventCodec#decode}'s message
   */
  public DecodedEvent decode(byte[] key, byte[] value) {
    event.clear();
    event.decoder = this;
    event.source = value;
    if (value != null && scanner.scan(key, value, event)) {
      scanned++;
      return event;
    }
    event.clear();
    event.decoder = this;
    event.source = value;
    boolean sure;
    try {
      sure = value != null && value.length > 0 && read(key, value);
    } catch (IOException | RuntimeException e) {
      sure = false;
    }
    if (sure) {
      streamed++;
    } else {
      fill(TokenEventCodec.decode(value));
    }
    return event;
  }

  /**
   * The same view of an event already decoded (offline input, tests).
   *
   * @throws TokenEventFormatException when it breaks the token event rules
   */
  public DecodedEvent decode(TokenEvent value) {
    String problem = TokenEventRules.problem(value);
    if (problem != null) {
      throw new TokenEventFormatException("not a token event: " + problem + " in " + value, null);
    }
    event.clear();
    event.decoder = this;
    fill(value);
    return event;
  }

  private void fill(TokenEvent e) {
    DecodedEvent d = event;
    d.clear();
    d.decoder = this;
    d.type = e.type();
    d.ts = e.ts();
    if (e.type() == EventType.HEARTBEAT) {
      d.producerId = e.producerId(); // as the fast readers: kept for heartbeats only
    } else if (e.requestId() != null) {
      d.requestId = e.requestId();
      d.requestKey = e.requestId().getBytes(StandardCharsets.UTF_8);
    }
    d.elapsedNs = e.elapsedNs() == null ? 0 : e.elapsedNs();
    if (e.seq() != null) {
      d.hasSeq = true;
      d.seq = e.seq();
    }
    if (e.tokens() != null) {
      d.hasTokens = true;
      d.tokens = e.tokens();
    }
    if (e.scheduleLagNs() != null) {
      d.hasScheduleLag = true;
      d.scheduleLagNs = e.scheduleLagNs();
    }
    if (e.completionTokens() != null) {
      d.hasCompletionTokens = true;
      d.completionTokens = e.completionTokens();
    }
    d.errorClass = e.errorClass();
    d.watermark = e.watermark() == null ? 0 : e.watermark();
    d.isFinal = Boolean.TRUE.equals(e.isFinal());
    if (e.clientPauseMaxUs() != null) {
      d.hasClientPause = true;
      d.clientPauseMaxUs = e.clientPauseMaxUs();
    }
    if (e.loopLagMaxUs() != null) {
      d.hasLoopLag = true;
      d.loopLagMaxUs = e.loopLagMaxUs();
    }
    d.coalesced = e.arrivedCoalesced();
    d.clientLagUs = e.clientLagOrZero();
    d.warmup = e.inWarmup();
    d.model = e.model();
    d.labels = e.labels();
    d.seriesRead = true;
  }

  /** One pass over the record; false when the data-binding decoder must decide. */
  private boolean read(byte[] key, byte[] value) throws IOException {
    DecodedEvent d = event;
    long seen = 0;
    int v = 0;
    try (JsonParser p = FACTORY.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      int previous = NAMES.length;
      while (true) {
        // the field that came next last time is matched as bytes; any other is looked up by name
        int field;
        int expect = follows[previous];
        if (expect < NAMES.length && p.nextFieldName(NAMES[expect])) {
          field = expect;
        } else {
          if (expect >= NAMES.length) {
            p.nextToken();
          }
          if (p.currentToken() != JsonToken.FIELD_NAME) {
            break;
          }
          field = field(p.currentName());
        }
        if (field == UNKNOWN) {
          return false; // data binding skips it, and refuses it if it is repeated: let it decide
        }
        JsonToken t = p.nextToken();
        follows[previous] = field;
        previous = field;
        long bit = 1L << field;
        if ((seen & bit) != 0 || t == JsonToken.VALUE_NULL) {
          return false; // a repeated field or a null: data binding's rules decide
        }
        seen |= bit;
        switch (field) {
          case TYPE -> {
            int type = t == JsonToken.VALUE_STRING ? match(p, TYPES) : -1;
            if (type < 0) {
              return false;
            }
            d.type = TYPE_VALUES[type];
          }
          case V -> {
            if (!isInt(p, t)) {
              return false;
            }
            v = p.getIntValue();
          }
          case TS -> {
            if (!isLong(p, t)) {
              return false;
            }
            d.ts = p.getLongValue();
          }
          case RUN_ID, MODEL, FINISH_REASON, MESSAGE, SOURCE -> {
            if (t != JsonToken.VALUE_STRING) {
              return false;
            }
          }
          case REQUEST_ID -> {
            if (t != JsonToken.VALUE_STRING) {
              return false;
            }
            d.requestKey = requestKey(p, key, d);
          }
          case LABELS -> {
            if (t != JsonToken.START_OBJECT || !skipLabels(p)) {
              return false;
            }
          }
          case ELAPSED_NS -> {
            if (!isLong(p, t)) {
              return false;
            }
            d.elapsedNs = p.getLongValue();
          }
          case SEQ -> {
            if (!isInt(p, t)) {
              return false;
            }
            d.hasSeq = true;
            d.seq = p.getIntValue();
          }
          case TOKENS -> {
            if (!isInt(p, t)) {
              return false;
            }
            d.hasTokens = true;
            d.tokens = p.getIntValue();
          }
          case KIND -> {
            if (t != JsonToken.VALUE_STRING || match(p, KINDS) < 0) {
              return false;
            }
          }
          case PROMPT_TOKENS, HTTP_STATUS, MALFORMED_CHUNKS -> {
            if (!isInt(p, t)) {
              return false;
            }
          }
          case COMPLETION_TOKENS -> {
            if (!isInt(p, t)) {
              return false;
            }
            d.hasCompletionTokens = true;
            d.completionTokens = p.getIntValue();
          }
          case ERROR_CLASS -> {
            if (t != JsonToken.VALUE_STRING) {
              return false;
            }
            d.errorClass = p.getText();
          }
          case SCHEDULE_LAG_NS -> {
            if (!isLong(p, t)) {
              return false;
            }
            d.hasScheduleLag = true;
            d.scheduleLagNs = p.getLongValue();
          }
          case PRODUCER_ID -> {
            // kept only for heartbeats (producers write the type first); checked otherwise
            if (d.type == EventType.HEARTBEAT) {
              if (t != JsonToken.VALUE_STRING) {
                return false;
              }
              d.producerId = p.getText();
            } else if (t != JsonToken.VALUE_STRING) {
              return false;
            }
          }
          case WATERMARK -> {
            if (!isLong(p, t)) {
              return false;
            }
            d.watermark = p.getLongValue();
          }
          case FINAL, COALESCED, WARMUP -> {
            if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
              return false;
            }
            boolean yes = t == JsonToken.VALUE_TRUE;
            if (field == FINAL) {
              d.isFinal = yes;
            } else if (field == COALESCED) {
              d.coalesced = yes;
            } else {
              d.warmup = yes;
            }
          }
          case CLIENT_PAUSE_MAX_US -> {
            if (!isLong(p, t)) {
              return false;
            }
            d.hasClientPause = true;
            d.clientPauseMaxUs = p.getLongValue();
          }
          case LOOP_LAG_MAX_US -> {
            if (!isLong(p, t)) {
              return false;
            }
            d.hasLoopLag = true;
            d.loopLagMaxUs = p.getLongValue();
          }
          case COALESCED_CHUNKS, DROPPED_EVENTS -> {
            if (!isLong(p, t)) {
              return false;
            }
          }
          case CLIENT_LAG_US -> {
            if (!isLong(p, t)) {
              return false;
            }
            d.clientLagUs = p.getLongValue();
          }
          default -> throw new IllegalStateException("field " + field);
        }
        if ((TokenEventRules.NEVER_NEGATIVE & bit) != 0 && p.getLongValue() < 0) {
          return false; // a negative count: data binding gives the message
        }
      }
      if (p.currentToken() != JsonToken.END_OBJECT) {
        return false;
      }
    }
    if (d.type == EventType.HEARTBEAT
        && (seen & (1L << PRODUCER_ID)) != 0
        && d.producerId == null) {
      return false; // the type came after the producer id: let data binding read it
    }
    String problem = TokenEventRules.problem(d, v, d.requestKey != null, seen);
    if (problem != null) {
      return false; // rejected: data binding gives the message
    }
    if (d.type == EventType.HEARTBEAT) {
      d.requestKey = null; // heartbeats belong to no request
    }
    return true;
  }

  /** Reads the model and labels of the event's record (a second, partial pass). */
  void readSeries(DecodedEvent d) {
    d.seriesRead = true;
    if (d.source == null) {
      return;
    }
    if (d.modelStart >= 0) {
      CompactScanner.readSeries(d);
      return;
    }
    try (JsonParser p = FACTORY.createParser(d.source)) {
      p.nextToken();
      String name;
      while ((name = p.nextFieldName()) != null) {
        JsonToken t = p.nextToken();
        if ("model".equals(name)) {
          d.model = p.getText();
        } else if ("labels".equals(name)) {
          TreeMap<String, String> labels = new TreeMap<>();
          labels(p, labels);
          d.labels = labels;
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("a record read once could not be read again", e);
    }
  }

  /**
   * Walks a labels object of strings without reading them, matching the names of the last record's
   * labels as bytes.
   */
  private boolean skipLabels(JsonParser p) throws IOException {
    SerializedString[] known = labelNames;
    int i = 0;
    while (true) {
      boolean matched;
      if (i < known.length) {
        matched = p.nextFieldName(known[i]);
      } else {
        p.nextToken();
        matched = false;
      }
      if (matched) {
        i++;
      } else if (p.currentToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        for (int j = 0; j < i; j++) {
          if (known[j].getValue().equals(name)) {
            return false; // a label written twice: data binding refuses it
          }
        }
        // another name: remember this record's names from here on
        SerializedString[] names = Arrays.copyOf(known, i + 1);
        names[i++] = new SerializedString(name);
        known = names;
        labelNames = names;
      } else {
        break;
      }
      if (p.nextToken() != JsonToken.VALUE_STRING) {
        return false;
      }
    }
    if (i < known.length) {
      labelNames = Arrays.copyOf(known, i);
    }
    return p.currentToken() == JsonToken.END_OBJECT;
  }

  /** Walks a labels object of strings; fills {@code into} when given. */
  private static boolean labels(JsonParser p, SortedMap<String, String> into) throws IOException {
    String label;
    while ((label = p.nextFieldName()) != null) {
      if (p.nextToken() != JsonToken.VALUE_STRING) {
        return false;
      }
      if (into != null) {
        into.put(label, p.getText());
      }
    }
    return p.currentToken() == JsonToken.END_OBJECT;
  }

  /** The request id as UTF-8: the key itself when the event's id is the same text. */
  private static byte[] requestKey(JsonParser p, byte[] key, DecodedEvent d) throws IOException {
    char[] text = p.getTextCharacters();
    int offset = p.getTextOffset();
    int length = p.getTextLength();
    if (key != null && key.length == length) {
      boolean same = true;
      for (int i = 0; i < length && same; i++) {
        byte b = key[i];
        same = b >= 0 && text[offset + i] == b;
      }
      if (same) {
        return key;
      }
    }
    d.requestId = new String(text, offset, length);
    byte[] utf8 = d.requestId.getBytes(StandardCharsets.UTF_8);
    return key != null && Arrays.equals(key, utf8) ? key : utf8;
  }

  private static int match(JsonParser p, char[][] words) throws IOException {
    char[] text = p.getTextCharacters();
    int offset = p.getTextOffset();
    int length = p.getTextLength();
    for (int w = 0; w < words.length; w++) {
      if (Arrays.equals(words[w], 0, words[w].length, text, offset, offset + length)) {
        return w;
      }
    }
    return -1;
  }

  private static boolean isInt(JsonParser p, JsonToken t) throws IOException {
    return t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT;
  }

  private static boolean isLong(JsonParser p, JsonToken t) throws IOException {
    if (t != JsonToken.VALUE_NUMBER_INT) {
      return false;
    }
    JsonParser.NumberType type = p.getNumberType();
    return type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG;
  }

  private static int field(String name) {
    return switch (name) {
      case "type" -> TYPE;
      case "v" -> V;
      case "ts" -> TS;
      case "runId" -> RUN_ID;
      case "requestId" -> REQUEST_ID;
      case "model" -> MODEL;
      case "labels" -> LABELS;
      case "elapsedNs" -> ELAPSED_NS;
      case "seq" -> SEQ;
      case "tokens" -> TOKENS;
      case "kind" -> KIND;
      case "promptTokens" -> PROMPT_TOKENS;
      case "completionTokens" -> COMPLETION_TOKENS;
      case "finishReason" -> FINISH_REASON;
      case "errorClass" -> ERROR_CLASS;
      case "httpStatus" -> HTTP_STATUS;
      case "message" -> MESSAGE;
      case "scheduleLagNs" -> SCHEDULE_LAG_NS;
      case "malformedChunks" -> MALFORMED_CHUNKS;
      case "producerId" -> PRODUCER_ID;
      case "watermark" -> WATERMARK;
      case "final" -> FINAL;
      case "clientPauseMaxUs" -> CLIENT_PAUSE_MAX_US;
      case "loopLagMaxUs" -> LOOP_LAG_MAX_US;
      case "coalescedChunks" -> COALESCED_CHUNKS;
      case "coalesced" -> COALESCED;
      case "warmup" -> WARMUP;
      case "source" -> SOURCE;
      case "droppedEvents" -> DROPPED_EVENTS;
      case "clientLagUs" -> CLIENT_LAG_US;
      default -> UNKNOWN;
    };
  }
}
