package io.tpotstream.common.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The streaming decoder against the data-binding one (the reference): over generated events and
 * hundreds of thousands of mutations of them, both accept the same records with the same values and
 * reject the same records with the same message.
 */
class TokenEventDecoderTest {
  private static final String[] FIELDS =
      Stream.concat(
              Arrays.stream(TokenEventDecoder.FIELD_NAMES),
              // names near the real ones: accessors of the record, other cases
              Stream.of(
                  "isFinal",
                  "Type",
                  "TS",
                  "tokensOrOne",
                  "inWarmup",
                  "finalHeartbeat",
                  "arrivedCoalesced",
                  "x"))
          .toArray(String[]::new);

  private static final String[] VALUES = {
    "null",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "2",
    "7",
    "-0",
    "1.5",
    "1e3",
    "1.0",
    "-7.25",
    "2147483647",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "99999999999999999999999",
    "1700000000000",
    "\"\"",
    "\"x\"",
    "\"1\"",
    "\"-3\"",
    "\"true\"",
    "\"token\"",
    "\"start\"",
    "\"end\"",
    "\"error\"",
    "\"heartbeat\"",
    "\"Token\"",
    "\"content\"",
    "\"reasoning\"",
    "\"tool\"",
    "\"tools\"",
    "\"req-1\"",
    "\"p-1\"",
    "\"caf\\u00e9\"",
    "\"\\ud800\"",
    "\"a\\nb\"",
    "\"\\x\"",
    "[]",
    "[1,2]",
    "{}",
    "{\"a\":\"b\"}",
    "{\"a\":1}",
    "{\"a\":null}",
    "{\"a\":{\"b\":1}}",
    "{\"a\":\"b\",\"a\":\"c\"}",
    "[{\"type\":\"token\"}]"
  };

  private final TokenEventDecoder decoder = new TokenEventDecoder();

  @Test
  void acceptsAndRejectsExactlyWhatTheDataBindingDecoderDoesWithTheSameMessages() {
    Random random = new Random(13);
    List<TokenEvent> samples = TokenEventCodecTest.oneOfEachType();
    int accepted = 0;
    int rejected = 0;
    for (int i = 0; i < 50_000; i++) {
      TokenEvent base =
          random.nextInt(4) == 0 ? samples.get(random.nextInt(samples.size())) : event(random);
      byte[] value = mutate(random, TokenEventCodec.encodeToString(base), i);
      byte[] key = key(random, base);
      if (compare(key, value)) {
        accepted++;
      } else {
        rejected++;
      }
    }
    assertTrue(accepted > 12_000, "accepted " + accepted);
    assertTrue(decoder.scanned > 5_000, "scanned " + decoder.scanned);
    assertTrue(decoder.streamed > 1_000, "streamed " + decoder.streamed);
    assertTrue(rejected > 12_000, "rejected " + rejected);
  }

  @Test
  void everyEventAProducerWritesIsReadInOnePass() {
    Random random = new Random(5);
    for (int i = 0; i < 10_000; i++) {
      TokenEvent e = event(random);
      compare(key(random, e), TokenEventCodec.encode(e));
    }
    assertEquals(10_000, decoder.scanned + decoder.streamed, "never data binding");
    assertTrue(decoder.scanned > 9_000, "the compact scanner read " + decoder.scanned);
  }

  @Test
  void theRequestIdIsTheRecordKeyWhenTheyMatch() {
    TokenEvent token =
        TokenEvent.token(5L, "r", "req-é-1", "m", null, 7L, 0, 1, TokenKind.CONTENT, "p");
    byte[] key = "req-é-1".getBytes(StandardCharsets.UTF_8);
    DecodedEvent d = decoder.decode(key, TokenEventCodec.encode(token));
    assertSame(key, d.requestKey());
    assertEquals("req-é-1", d.requestId());

    byte[] other = "another".getBytes(StandardCharsets.UTF_8);
    d = decoder.decode(other, TokenEventCodec.encode(token));
    assertArrayEquals(key, d.requestKey(), "the event's own id wins over a different key");
    d = decoder.decode(null, TokenEventCodec.encode(token));
    assertArrayEquals(key, d.requestKey());
  }

  @Test
  void theModelAndLabelsAreReadOnlyWhenAsked() {
    TokenEvent start =
        TokenEvent.start(5L, "r", "q", "model-a", Map.of("b", "2", "a", "1"), null, "p");
    DecodedEvent d =
        decoder.decode("q".getBytes(StandardCharsets.UTF_8), TokenEventCodec.encode(start));
    assertEquals(false, d.seriesRead);
    assertEquals("model-a", d.model());
    assertEquals(new TreeMap<>(Map.of("a", "1", "b", "2")), d.labels());
    assertTrue(d.seriesRead);
  }

  @Test
  void anUnknownVersionOrANegativeCountIsRejectedWithAReason() {
    String v2 =
        "{\"type\":\"token\",\"v\":2,\"ts\":5,\"requestId\":\"r\",\"model\":\"m\",\"elapsedNs\":7,"
            + "\"seq\":0}";
    TokenEventFormatException e =
        assertThrows(TokenEventFormatException.class, () -> decoder.decode(null, utf8(v2)));
    assertEquals(
        "not a token event: version v=2 is not 1 (written by another version of the producer:"
            + " check that both ends run the same tpot) in '"
            + v2
            + "'",
        e.getMessage());
    for (String field : List.of("seq", "tokens", "elapsedNs")) {
      String json =
          "{\"type\":\"token\",\"v\":1,\"ts\":5,\"requestId\":\"r\",\"model\":\"m\",\"elapsedNs\":7,"
              + "\"seq\":3,\"tokens\":2}";
      String negative = json.replace("\"" + field + "\":", "\"" + field + "\":-");
      TokenEventFormatException n =
          assertThrows(TokenEventFormatException.class, () -> decoder.decode(null, utf8(negative)));
      assertTrue(
          n.getMessage().startsWith("not a token event: negative " + field + " -"), n.getMessage());
      assertEquals(n.getMessage(), reject(utf8(negative)));
    }
  }

  /** Both decoders on one record; true when accepted. */
  private boolean compare(byte[] key, byte[] value) {
    TokenEvent expected;
    String expectedError = null;
    try {
      expected = TokenEventCodec.decode(value);
    } catch (TokenEventFormatException e) {
      expected = null;
      expectedError = e.getMessage();
    }
    DecodedEvent actual;
    try {
      actual = decoder.decode(key, value);
    } catch (TokenEventFormatException e) {
      assertEquals(expectedError, e.getMessage(), () -> "on " + text(value));
      return false;
    } catch (RuntimeException e) {
      throw new AssertionError("on " + text(value), e);
    }
    if (expected == null) {
      fail("accepted what data binding rejects (" + expectedError + "): " + text(value));
    }
    assertSame(expected, expected);
    String on = text(value);
    assertEquals(expected.type(), actual.type(), on);
    assertEquals(expected.ts(), actual.ts(), on);
    if (expected.type() == EventType.HEARTBEAT) {
      assertNull(actual.requestKey(), on);
      assertEquals(expected.producerId(), actual.producerId(), on);
      assertEquals(expected.watermark(), actual.watermark(), on);
      assertEquals(expected.finalHeartbeat(), actual.finalHeartbeat(), on);
      assertEquals(
          expected.clientPauseMaxUs(),
          actual.hasClientPause() ? actual.clientPauseMaxUs() : null,
          on);
      assertEquals(expected.loopLagMaxUs(), actual.hasLoopLag() ? actual.loopLagMaxUs() : null, on);
    } else {
      assertEquals(expected.requestId(), actual.requestId(), on);
      assertArrayEquals(
          expected.requestId().getBytes(StandardCharsets.UTF_8), actual.requestKey(), on);
      assertEquals(expected.errorClass(), actual.errorClass(), on);
    }
    assertEquals(Objects.requireNonNullElse(expected.elapsedNs(), 0L), actual.elapsedNs(), on);
    if (expected.seq() != null) {
      assertEquals(expected.seq(), actual.seq(), on);
    }
    assertEquals(expected.tokensOrOne(), actual.tokensOrOne(), on);
    assertEquals(
        expected.scheduleLagNs(), actual.hasScheduleLag() ? actual.scheduleLagNs() : null, on);
    assertEquals(
        expected.completionTokens(),
        actual.hasCompletionTokens() ? actual.completionTokens() : null,
        on);
    assertEquals(expected.arrivedCoalesced(), actual.coalesced(), on);
    assertEquals(expected.inWarmup(), actual.warmup(), on);
    assertEquals(expected.model(), actual.model(), on);
    assertEquals(expected.labels(), actual.labels(), on);
    return true;
  }

  private String reject(byte[] value) {
    try {
      TokenEventCodec.decode(value);
      return null;
    } catch (TokenEventFormatException e) {
      return e.getMessage();
    }
  }

  private static TokenEvent event(Random r) {
    long ts = 1_700_000_000_000L + r.nextInt(1_000_000);
    // ids as long as a producer's, so that strings are read eight bytes at a time too
    String id =
        (r.nextBoolean() ? "run-20260101-120000-ab12-" : "req-")
            + r.nextInt(1000)
            + (r.nextInt(20) == 0 ? "-ü" : "");
    String model = "model-" + (char) ('a' + r.nextInt(3));
    Map<String, String> labels =
        switch (r.nextInt(3)) {
          case 0 -> null;
          case 1 -> Map.of("concurrency", "" + r.nextInt(50));
          default -> Map.of("concurrency", "5", "run", "r" + r.nextInt(3), "target", "gw");
        };
    TokenEvent e =
        switch (r.nextInt(6)) {
          case 0 ->
              TokenEvent.start(
                  ts,
                  "run",
                  id,
                  model,
                  labels,
                  r.nextBoolean() ? null : (long) r.nextInt(9_000_000),
                  "p-1");
          case 1, 2 ->
              TokenEvent.token(
                  ts,
                  "run",
                  id,
                  model,
                  labels,
                  r.nextInt(900_000_000),
                  r.nextInt(300),
                  1 + r.nextInt(3),
                  TokenKind.values()[r.nextInt(3)],
                  "p-1");
          case 3 -> {
            long at = r.nextInt(900_000_000);
            Integer usage = r.nextBoolean() ? null : r.nextInt(400);
            Integer prompt = r.nextBoolean() ? null : 12;
            Integer bad = r.nextBoolean() ? null : 1;
            int n = r.nextInt(300);
            yield TokenEvent.end(
                ts, "run", id, model, labels, at, n, prompt, usage, "stop", bad, "p-1");
          }
          case 4 -> {
            long at = r.nextInt(900_000_000);
            Integer status = r.nextBoolean() ? null : 503;
            String said = "HTTP 503: try later";
            int n = r.nextInt(9);
            yield TokenEvent.error(
                ts, "run", id, model, labels, at, n, "http_5xx", status, said, null, "p-1");
          }
          default ->
              TokenEvent.heartbeat(
                  ts,
                  "run",
                  "p-" + r.nextInt(3),
                  ts - 200,
                  r.nextInt(5) == 0,
                  r.nextBoolean() ? null : (long) r.nextInt(5000),
                  r.nextBoolean() ? null : (long) r.nextInt(5000),
                  r.nextBoolean() ? null : (long) r.nextInt(50));
        };
    if (e.type() == EventType.TOKEN && r.nextInt(4) == 0) {
      e = e.asCoalesced();
    }
    if (e.type() != EventType.HEARTBEAT && r.nextInt(6) == 0) {
      e = e.asWarmup();
    }
    if (r.nextInt(3) == 0) {
      e = e.withSource(r.nextBoolean() ? "producer" : "proxy");
    }
    return e;
  }

  private static byte[] key(Random r, TokenEvent e) {
    return switch (r.nextInt(5)) {
      case 0 -> null;
      case 1 -> "other".getBytes(StandardCharsets.UTF_8);
      case 2 -> e.producerId() == null ? null : e.producerId().getBytes(StandardCharsets.UTF_8);
      default -> e.requestId() == null ? null : e.requestId().getBytes(StandardCharsets.UTF_8);
    };
  }

  /** A valid encoding, or one of many ways to break or bend it. */
  private static byte[] mutate(Random r, String json, int i) {
    int kind = r.nextInt(12);
    if (kind < 3) {
      return utf8(json);
    }
    if (kind < 8) {
      List<String[]> fields = fields(json);
      int edits = 1 + r.nextInt(3);
      for (int e = 0; e < edits; e++) {
        switch (r.nextInt(6)) {
          case 0 -> {
            if (!fields.isEmpty()) {
              fields.remove(r.nextInt(fields.size()));
            }
          }
          case 1 -> {
            if (!fields.isEmpty()) {
              String[] f = fields.get(r.nextInt(fields.size()));
              fields.add(r.nextInt(fields.size() + 1), new String[] {f[0], f[1]});
            }
          }
          case 2, 3 -> {
            if (!fields.isEmpty()) {
              fields.get(r.nextInt(fields.size()))[1] = VALUES[r.nextInt(VALUES.length)];
            }
          }
          case 4 ->
              fields.add(
                  r.nextInt(fields.size() + 1),
                  new String[] {
                    FIELDS[r.nextInt(FIELDS.length)], VALUES[r.nextInt(VALUES.length)]
                  });
          default -> {
            if (fields.size() > 1) {
              fields.add(fields.remove(r.nextInt(fields.size())));
            }
          }
        }
      }
      StringBuilder out = new StringBuilder("{");
      for (int f = 0; f < fields.size(); f++) {
        out.append(f == 0 ? "" : ",")
            .append('"')
            .append(fields.get(f)[0])
            .append("\":")
            .append(fields.get(f)[1]);
      }
      return utf8(out.append('}').toString());
    }
    byte[] bytes = utf8(json);
    if (kind == 8 && r.nextBoolean()) {
      // a space where a producer writes none
      int at = 1 + r.nextInt(bytes.length - 1);
      return utf8(json.substring(0, at) + " " + json.substring(at));
    }
    return switch (kind) {
      case 8 -> java.util.Arrays.copyOf(bytes, r.nextInt(bytes.length + 1));
      case 9 -> {
        byte[] b = bytes.clone();
        b[r.nextInt(b.length)] = (byte) r.nextInt(256);
        yield b;
      }
      case 10 -> {
        String[] tails = {" ", "x", "}", "{}", ",", "\n{\"type\":1}", "\u0000"};
        yield utf8(json + tails[r.nextInt(tails.length)]);
      }
      default -> {
        String[] heads = {" ", "\uFEFF", "\n\t", "[", "null", "0", "\"s\"", ""};
        yield i % 2 == 0 ? utf8(heads[r.nextInt(heads.length)] + json) : new byte[0];
      }
    };
  }

  /** The top-level fields of an encoding (values kept as JSON text). */
  private static List<String[]> fields(String json) {
    var node = readTree(json);
    List<String[]> fields = new ArrayList<>();
    node.fields()
        .forEachRemaining(e -> fields.add(new String[] {e.getKey(), e.getValue().toString()}));
    return fields;
  }

  private static com.fasterxml.jackson.databind.JsonNode readTree(String json) {
    try {
      return io.tpotstream.common.Json.MAPPER.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] value) {
    return value == null ? "null" : "'" + new String(value, StandardCharsets.UTF_8) + "'";
  }
}
