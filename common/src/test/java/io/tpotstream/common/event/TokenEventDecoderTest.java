package io.tpotstream.common.event;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineTiming;
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
    // digits by the word: lengths around eight and sixteen, leading zeros, what may follow them
    "12345678",
    "123456789",
    "-12345678",
    "1234567890123456",
    "12345678901234567",
    "123456789012345678",
    "-123456789012345678",
    "1234567890123456789",
    "01",
    "00000000",
    "012345678",
    "1234567.5",
    "12345678.0",
    "12345678e1",
    "1234567890123456E2",
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
    "\"engine\"",
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
    assertTrue(rejected > 12_000, "rejected " + rejected);
  }

  /**
   * Values for any field: every JSON type, null, numbers at and past the ends of int and long and
   * of every length around the scanner's words of eight bytes, negatives, fractions and exponents,
   * empty and numeric strings, escapes, and label maps broken in each way (a null, a number, a
   * repeated name, an object).
   */
  private static final String[] ANY_FIELD_VALUES = {
    "null",
    "true",
    "false",
    "0",
    "-0",
    "1",
    "-1",
    "7",
    "1.5",
    "1.0",
    "-0.5",
    "0.0",
    "1e3",
    "1E0",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "1700000000000",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999999",
    "\"\"",
    "\"1\"",
    "\" 1\"",
    "\"-1\"",
    "\"1.5\"",
    "\"true\"",
    "\"x\"",
    "\"token\"",
    "\"heartbeat\"",
    "\"tok\\u0065n\"",
    "\"content\"",
    "\"tool\"",
    "\"caf\\u00e9\"",
    "\"café\"",
    "\"\\ud800\"",
    "\"a\\\"b\"",
    "\"a\\nb\"",
    "\"p-1\"",
    "[]",
    "[1]",
    "{}",
    "{\"a\":\"b\"}",
    "{\"a\":\"b\",\"c\":\"d\"}",
    "{\"a\":\"b\",\"a\":\"c\"}",
    "{\"a\":\"b\",\"c\":\"d\",\"a\":\"e\"}",
    "{\"a\":null}",
    "{\"a\":1}",
    "{\"a\":true}",
    "{\"a\":{}}",
    "{\"a\":\"\\u00e9\"}",
    "{\"\\u0061\":\"b\"}",
  };

  /**
   * Every field of the design (and {@code droppedEvents}), on every type of event, removed, set to
   * null, to each of {@link #ANY_FIELD_VALUES} or written twice, in the compact form producers
   * write and with a space (the streaming parser's path): the fast decoder's verdict, message and
   * values are the reference's on every one.
   */
  @Test
  void everyFieldOfEveryTypeWrongNullMissingOutOfRangeOrRepeatedGetsTheReferenceVerdict() {
    List<String> differences = new ArrayList<>();
    int records = 0;
    int accepted = 0;
    for (TokenEvent base : everyFieldOfEachType()) {
      List<String[]> fields = fields(TokenEventCodec.encodeToString(base));
      byte[] key = base.requestId() == null ? null : utf8(base.requestId());
      // and a field of no version of the design, which data binding skips
      for (String name :
          Stream.concat(Arrays.stream(TokenEvent.fieldNames()), Stream.of("x")).toList()) {
        int at = indexOf(fields, name);
        // each mutant: what was done to the field, and the fields after it
        Map<String, List<String[]>> mutants = new java.util.LinkedHashMap<>();
        if (at >= 0) {
          List<String[]> removed = copy(fields);
          removed.remove(at);
          mutants.put("removed", removed);
          for (String other : new String[] {fields.get(at)[1], "1", "\"p-1\"", "true"}) {
            List<String[]> twice = copy(fields);
            twice.add(new String[] {name, other});
            mutants.put("repeated as " + other, twice);
          }
        }
        for (String value : ANY_FIELD_VALUES) {
          List<String[]> set = copy(fields);
          if (at >= 0) {
            set.get(at)[1] = value;
          } else {
            set.add(new String[] {name, value});
          }
          mutants.put(value, set);
        }
        for (Map.Entry<String, List<String[]>> mutant : mutants.entrySet()) {
          String json = json(mutant.getValue());
          for (String record : new String[] {json, "{ " + json.substring(1)}) {
            for (byte[] k : new byte[][] {key, null}) {
              records++;
              try {
                if (compare(k, utf8(record))) {
                  accepted++;
                }
              } catch (AssertionError e) {
                String what = base.type().wire() + " " + name + " " + mutant.getKey();
                String message = String.valueOf(e.getMessage());
                differences.add(
                    what
                        + (record.startsWith("{ ") ? " (reference codec)" : " (compact)")
                        + ": "
                        + message.substring(message.lastIndexOf("==>") + 1));
              }
            }
          }
        }
      }
    }
    assertTrue(
        differences.isEmpty(),
        differences.size()
            + " of "
            + records
            + " records decoded differently:\n"
            + String.join("\n", new java.util.LinkedHashSet<>(differences)));
    assertTrue(accepted > records / 10, "accepted " + accepted + " of " + records);
  }

  /**
   * Every bounded field ({@link TokenEventBounds}) on every type of event, at each bound and one
   * past it, at the ends of a long, and every text field empty, at its most characters (ASCII and
   * not), one past and 400 KB; labels at their most entries and characters and one past: both
   * decoders accept exactly the values within the bounds and reject the others with a message that
   * names the field, its value (a long string's length, never the string) and the bound.
   */
  @Test
  void everyFieldIsReadExactlyWithinItsBoundsAndRejectedNamingItPastThem() {
    List<String> names = List.of(TokenEventDecoder.FIELD_NAMES);
    var components = TokenEvent.class.getRecordComponents();
    int records = 0;
    long scannedBefore = decoder.scanned;
    for (TokenEvent base : everyFieldOfEachType()) {
      List<String[]> fields = fields(TokenEventCodec.encodeToString(base));
      for (TokenEventBounds.Range r : TokenEventBounds.RANGES) {
        if (misplaced(base, r.field())) {
          continue; // a request's field on an engine event: the rules' test
        }
        int f = names.indexOf(r.field());
        boolean anInt = components[f].getType() == Integer.class;
        for (long value :
            new long[] {
              r.min(), r.max(), r.min() - 1, r.max() + 1, Long.MIN_VALUE, Long.MAX_VALUE, 0, -1
            }) {
          String problem = verdict(with(fields, r.field(), Long.toString(value)));
          records++;
          String on = base.type().wire() + " " + r.field() + "=" + value;
          if (value >= r.min() && value <= r.max()) {
            assertNull(problem, on);
          } else if (anInt && (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE)) {
            assertTrue(problem.startsWith("not a token event: " + r.field() + ": "), problem);
          } else if (f == TokenEventDecoder.TS && value == 0) {
            assertTrue(problem.startsWith("not a token event: missing ts in '"), problem);
          } else {
            String expected = TokenEventBounds.rangeProblem(f, value);
            assertTrue(
                expected.startsWith(
                    value < 0 && r.min() == 0 ? "negative " + r.field() : r.field()),
                on);
            // the bound, unless it is "negative" (of a count from 0, as ever)
            assertTrue(
                expected.startsWith("negative ")
                    || expected.endsWith(" " + (value < r.min() ? r.min() : r.max())),
                expected);
            assertTrue(problem.startsWith("not a token event: " + expected + " in '"), problem);
          }
        }
      }
      for (TokenEventBounds.Length l : TokenEventBounds.LENGTHS) {
        if (misplaced(base, l.field())) {
          continue;
        }
        int max = l.maxChars();
        for (String value :
            new String[] {
              "",
              "a".repeat(max),
              "é".repeat(max),
              "\uD83D\uDE00".repeat(max), // an emoji: two chars, one code point
              "a".repeat(max + 1),
              "\uD83D\uDE00".repeat(max + 1),
              "a".repeat(400 * 1024)
            }) {
          String problem = verdict(with(fields, l.field(), quoted(value)));
          records++;
          int chars = value.codePointCount(0, value.length());
          if (chars <= max) {
            assertNull(problem, l.field() + " of " + chars + " characters");
          } else {
            String expected = l.field() + " is " + chars + " characters, more than " + max;
            assertTrue(problem.startsWith("not a token event: " + expected + " in '"), problem);
            assertTrue(problem.length() < 400, "the value is cut short: " + problem.length());
          }
        }
      }
      for (Map.Entry<Map<String, String>, String> labels : boundedLabels().entrySet()) {
        String problem = verdict(with(fields, "labels", quoted(labels.getKey())));
        records++;
        if (labels.getValue() == null) {
          assertNull(problem);
        } else {
          assertTrue(problem.startsWith("not a token event: " + labels.getValue()), problem);
          assertTrue(problem.length() < 400, "the value is cut short: " + problem.length());
        }
      }
    }
    // seven events with every field of their type, and an engine event without the 11 ranged and 3
    // text fields of a request
    assertEquals(
        7 * (17 * 8 + 7 * 7 + boundedLabels().size()) + (6 * 8 + 4 * 7 + boundedLabels().size()),
        records);
    // the compact scanner itself read (at least) each range's min and max and each text's empty and
    // longest ASCII value, on every type of event: the fast path enforces the bounds, not only
    // data binding
    assertTrue(
        decoder.scanned - scannedBefore >= 5 * (15 * 2 + 7 * 2), "scanned " + decoder.scanned);
  }

  @Test
  void theBoundsMessagesNameTheFieldItsValueAndTheBound() {
    assertEquals(
        "tokens 4097 is more than 4096",
        TokenEventBounds.rangeProblem(TokenEventDecoder.TOKENS, 4097));
    assertEquals("negative seq -3", TokenEventBounds.rangeProblem(TokenEventDecoder.SEQ, -3));
    assertEquals(
        "ts 5 is less than 946684800000", TokenEventBounds.rangeProblem(TokenEventDecoder.TS, 5));
    assertEquals(
        "scheduleLagNs -604800000000001 is less than -604800000000000",
        TokenEventBounds.rangeProblem(TokenEventDecoder.SCHEDULE_LAG_NS, -604_800_000_000_001L));
    assertNull(TokenEventBounds.rangeProblem(TokenEventDecoder.HTTP_STATUS, 599));
    String model = "m".repeat(409_600);
    String start =
        "{\"type\":\"start\",\"v\":1,\"ts\":1700000000000,\"requestId\":\"r\",\"model\":\""
            + model
            + "\",\"elapsedNs\":0}";
    TokenEventFormatException e =
        assertThrows(TokenEventFormatException.class, () -> decoder.decode(null, utf8(start)));
    assertEquals(
        "not a token event: model is 409600 characters, more than 256 in '"
            + start.substring(0, 120)
            + "…'",
        e.getMessage());
  }

  @Test
  void prefixHashesAreReadUpToTheirBoundAndRejectedPastItOrWhenNotWholeNumbers() {
    List<String[]> fields = fields(TokenEventCodec.encodeToString(everyFieldOfEachType().get(5)));
    for (int n : new int[] {0, 1, TokenEventBounds.MAX_PREFIX_HASHES}) {
      List<Long> hashes = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        hashes.add(Long.MAX_VALUE - i);
      }
      assertNull(verdict(with(fields, "prefixHashes", quoted(hashes))), n + " hashes");
    }
    List<Long> tooMany = new ArrayList<>();
    for (int i = 0; i <= TokenEventBounds.MAX_PREFIX_HASHES; i++) {
      tooMany.add((long) i);
    }
    String problem = verdict(with(fields, "prefixHashes", quoted(tooMany)));
    assertTrue(
        problem.startsWith("not a token event: prefixHashes has 1025 hashes, more than 1024 in '"),
        problem);
    for (String wrong :
        new String[] {"[9223372036854775808]", "[1.5]", "[\"1\"]", "[null]", "[[1]]", "7", "{}"}) {
      String rejected = verdict(with(fields, "prefixHashes", wrong));
      assertTrue(rejected.startsWith("not a token event: prefixHashes: "), wrong + ": " + rejected);
    }
  }

  /**
   * Every bounded number inside {@code engine} and {@code engineTiming} ({@link EngineBounds}) at
   * each bound, one past, at the ends of a long, and a gauge at fractions around its bounds and at
   * infinity: both decoders accept exactly the values within the bounds and reject the others with
   * a message that names the field by its path, its value and the bound.
   */
  @Test
  void everyEngineNumberIsReadWithinItsBoundsAndRejectedNamingItsPathPastThem() {
    List<TokenEvent> bases = everyFieldOfEachType();
    TokenEvent end = bases.get(bases.size() - 2);
    TokenEvent engine = bases.get(bases.size() - 1);
    int records = 0;
    for (TokenEventBounds.Range r : EngineBounds.RANGES) {
      boolean anInt =
          List.of("engine.scrapes", "engine.failedScrapes", "engine.resets").contains(r.field());
      boolean gauge =
          List.of("engine.running", "engine.waiting", "engine.kvCacheUsage").contains(r.field());
      List<String> values = new ArrayList<>();
      for (long value :
          new long[] {
            r.min(), r.max(), r.min() - 1, r.max() + 1, Long.MIN_VALUE, Long.MAX_VALUE, 0, -1
          }) {
        values.add(Long.toString(value));
      }
      if (gauge) {
        values.addAll(List.of("0.5", r.max() + ".0", r.max() + ".5", "-0.25", "1e999", "-1e999"));
      }
      for (String value : values) {
        String path = r.field().replace("histogram.", "engine.tpot.").replace("[]", "[0]");
        String problem =
            verdict(
                rangeRecord(r.field().startsWith("engineTiming") ? end : engine, r.field(), value));
        records++;
        double number = Double.parseDouble(value);
        String on = r.field() + "=" + value;
        if (number >= r.min() && number <= r.max()) {
          assertNull(problem, on);
        } else if (anInt && (number < Integer.MIN_VALUE || number > Integer.MAX_VALUE)) {
          assertTrue(problem.startsWith("not a token event: " + path + ": "), problem);
        } else {
          String expected = number < 0 && r.min() == 0 ? "negative " + path + " " : path + " ";
          assertTrue(problem.startsWith("not a token event: " + expected), on + ": " + problem);
          String bound = number < r.min() ? " is less than " + r.min() : " is more than " + r.max();
          assertTrue(
              problem.startsWith("not a token event: negative ")
                  || problem.contains(bound + " in '"),
              on + ": " + problem);
        }
      }
    }
    assertEquals(15 * 8 + 3 * 6, records);
  }

  /**
   * Every text and array inside {@code engine} at its most and one past, the rules no schema
   * keyword says (ascending bounds, one more count than bounds, hits at most queries), and fields
   * missing, null or of the wrong type: both decoders agree, naming the field by its path.
   */
  @Test
  void engineTextsArraysAndCrossFieldRulesAreReadAsTheReferenceReadsThem() {
    TokenEvent engine = everyFieldOfEachType().get(everyFieldOfEachType().size() - 1);
    for (TokenEventBounds.Length l : EngineBounds.LENGTHS) {
      int max = l.maxChars();
      String path = l.field().replace("[]", "[0]");
      for (String text :
          new String[] {
            "",
            "a".repeat(max),
            "\uD83D\uDE00".repeat(max),
            "a".repeat(max + 1),
            "é".repeat(400 * 1024)
          }) {
        String value = l.field().endsWith("[]") ? quoted(List.of(text)) : quoted(text);
        String problem = verdict(engineWith(engine, l.field().replace("[]", ""), value));
        int chars = text.codePointCount(0, text.length());
        if (chars <= max) {
          assertNull(problem, path + " of " + chars);
        } else {
          assertTrue(
              problem.startsWith(
                  "not a token event: "
                      + path
                      + " is "
                      + chars
                      + " characters, more than "
                      + max
                      + " in '"),
              problem);
        }
      }
    }
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put("engine.missing=" + quoted(numberedNames(32)), null);
    cases.put(
        "engine.missing=" + quoted(numberedNames(33)), "engine.missing has 33 names, more than 32");
    cases.put("engine.tpot=" + histogram(64, 65), null);
    cases.put("engine.tpot=" + histogram(65, 66), "engine.tpot.leUs has 65 bounds, more than 64");
    cases.put("engine.tpot=" + histogram(64, 66), "engine.tpot.counts has 66 counts for 64 bounds");
    cases.put("engine.tpot=" + histogram(3, 3), "engine.tpot.counts has 3 counts for 3 bounds");
    cases.put("engine.tpot={\"leUs\":[],\"counts\":[5]}", null);
    cases.put(
        "engine.ttft={\"leUs\":[5,5],\"counts\":[1,1,1]}",
        "engine.ttft.leUs[1] 5 is not above the bound before it, 5 (bounds ascend strictly)");
    cases.put(
        "engine.e2e={\"leUs\":[9,5],\"counts\":[1,1,1]}",
        "engine.e2e.leUs[1] 5 is not above the bound before it, 9");
    cases.put("engine.queue={\"counts\":[1]}", "missing engine.queue.leUs");
    cases.put("engine.queue={\"leUs\":[]}", "missing engine.queue.counts");
    cases.put("engine.queue={\"leUs\":[1],\"counts\":[1,null]}", "engine.queue.counts[1]: ");
    cases.put("engine.queue={\"leUs\":[1],\"counts\":[1,1.5]}", "engine.queue.counts[1]: ");
    cases.put("engine.queue={\"leUs\":[\"1\"],\"counts\":[1,1]}", "engine.queue.leUs[0]: ");
    cases.put("engine.queue=[1,2]", "engine.queue: ");
    cases.put("engine.prefixHits=2048", null);
    cases.put(
        "engine.prefixHits=2049", "engine.prefixHits 2049 is more than engine.prefixQueries 2048");
    cases.put("engine.running=\"3\"", "engine.running: ");
    cases.put("engine.running=true", "engine.running: ");
    cases.put("engine.kvCacheUsage=1", null);
    cases.put("engine.intervalMs=1.5", "engine.intervalMs: ");
    cases.put("engine.mapping=7", "engine.mapping: ");
    cases.put("engine.missing=[\"a\",null]", "engine.missing[1]: ");
    cases.put("engine.endpoint=null", "missing engine.endpoint");
    cases.put("engine.mapping=null", "missing engine.mapping");
    cases.put("engineTiming.ttftUs=\"85\"", "engineTiming.ttftUs: ");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      int eq = c.getKey().indexOf('=');
      String field = c.getKey().substring(0, eq);
      TokenEvent base = field.startsWith("engineTiming") ? everyFieldOfEachType().get(6) : engine;
      String problem = verdict(engineWith(base, field, c.getKey().substring(eq + 1)));
      if (c.getValue() == null) {
        assertNull(problem, c.getKey());
      } else {
        assertTrue(
            problem != null && problem.startsWith("not a token event: " + c.getValue()),
            c.getKey() + ": " + problem);
      }
    }
  }

  /** What an engine event needs and what no other type carries, named exactly. */
  @Test
  void anEngineEventNeedsItsFieldsAndCarriesNoRequestsAndOnlyEndsCarryEngineTiming() {
    String engine =
        TokenEventCodec.encodeToString(
            TokenEvent.engine(1_700_000_000_000L, "r", "m", null, "p", fullScrape()));
    Map<String, String> cases = new java.util.LinkedHashMap<>();
    cases.put(engine.replace("\"model\":\"m\",", ""), "missing model");
    cases.put(engine.replace("\"producerId\":\"p\",", ""), "missing producerId");
    cases.put(engine.substring(0, engine.indexOf(",\"engine\":")) + "}", "missing engine");
    cases.put(
        engine.replace("\"model\":", "\"requestId\":\"q\",\"model\":"),
        "requestId on an engine event (it belongs to no request)");
    cases.put(
        engine.replace("\"producerId\":", "\"warmup\":true,\"producerId\":"),
        "warmup on an engine event (it belongs to no request)");
    cases.put(
        engine.replace("\"producerId\":", "\"elapsedNs\":5,\"seq\":1,\"producerId\":"),
        "elapsedNs on an engine event (it belongs to no request)");
    cases.put(
        engine.replace("\"producerId\":", "\"engineTiming\":{},\"producerId\":"),
        "engineTiming on an engine event (it belongs to no request)");
    String token =
        "{\"type\":\"token\",\"v\":1,\"ts\":1700000000005,\"requestId\":\"r\",\"model\":\"m\","
            + "\"elapsedNs\":7,\"seq\":0";
    cases.put(
        token + ",\"engineTiming\":{\"ttftUs\":5}}",
        "engineTiming on a token event (only an end event carries it)");
    cases.put(
        token.replace("token", "error") + ",\"errorClass\":\"http_5xx\",\"engineTiming\":{}}",
        "engineTiming on an error event (only an end event carries it)");
    cases.put(
        token + ",\"engine\":" + engine.substring(engine.indexOf("{\"endpoint")),
        "engine on a token event (only an engine event carries it)");
    cases.put(
        "{\"type\":\"heartbeat\",\"v\":1,\"ts\":1700000000005,\"producerId\":\"p\",\"watermark\":1700000000000,\"engine\":{}}",
        "engine on a heartbeat event (only an engine event carries it)");
    for (Map.Entry<String, String> c : cases.entrySet()) {
      String problem = verdict(c.getKey());
      assertEquals(
          "not a token event: " + c.getValue() + " in " + TokenEventCodec.preview(utf8(c.getKey())),
          problem);
    }
    assertNull(verdict(engine));
    DecodedEvent d = decoder.decode(utf8("p"), utf8(engine));
    assertEquals(EventType.ENGINE, d.type());
    assertEquals(fullScrape(), d.engine());
    assertEquals("m", d.model());
    assertNull(d.requestKey());
  }

  /**
   * The event's JSON with a ranged {@code field} set to {@code value}: each prefix counter alone in
   * its range (prefixHits beside the most prefixQueries, prefixQueries without prefixHits).
   */
  private static String rangeRecord(TokenEvent base, String field, String value) {
    String json = engineWith(base, field, value);
    if (field.equals("engine.prefixQueries")) {
      return json.replace(",\"prefixHits\":1024", "");
    }
    if (field.equals("engine.prefixHits")) {
      return json.replace(
          "\"prefixQueries\":2048",
          "\"prefixQueries\":" + EngineBounds.range("engine.prefixQueries").max());
    }
    return json;
  }

  /** The event's JSON with {@code path} (one level into engine or engineTiming) set to a value. */
  private static String engineWith(TokenEvent base, String path, String value) {
    com.fasterxml.jackson.databind.node.ObjectNode event =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            readTree(TokenEventCodec.encodeToString(base));
    String[] parts = path.replace("histogram.", "engine.tpot.").replace("[]", "").split("\\.");
    com.fasterxml.jackson.databind.node.ObjectNode object =
        (com.fasterxml.jackson.databind.node.ObjectNode) event.get(parts[0]);
    for (int i = 1; i < parts.length - 1; i++) {
      object = (com.fasterxml.jackson.databind.node.ObjectNode) object.get(parts[i]);
    }
    String last = parts[parts.length - 1];
    if (path.startsWith("histogram.")) {
      // a histogram of one bound, its item set to the value
      object.set("leUs", readTree(last.equals("leUs") ? "[" + value + "]" : "[1]"));
      object.set("counts", readTree(last.equals("counts") ? "[" + value + ",0]" : "[0,0]"));
      return event.toString();
    }
    if (path.endsWith("[]")) {
      object.set(last, readTree("[" + value + "]"));
      return event.toString();
    }
    // a value written as text, so that 1e999 and 1.0 reach the readers as written
    String marker = "\"__value__\"";
    object.put(last, "__value__");
    return event.toString().replace(marker, value);
  }

  private static List<String> numberedNames(int n) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      names.add("vllm:metric_" + i);
    }
    return names;
  }

  /** A histogram of {@code bounds} ascending bounds and {@code counts} counts, as JSON. */
  private static String histogram(int bounds, int counts) {
    List<Long> le = new ArrayList<>();
    for (int i = 1; i <= bounds; i++) {
      le.add(1_000L * i);
    }
    List<Long> c = new ArrayList<>();
    for (int i = 0; i < counts; i++) {
      c.add((long) i);
    }
    return "{\"leUs\":" + quoted(le) + ",\"counts\":" + quoted(c) + "}";
  }

  @Test
  void anUnknownErrorClassIsReadAsOtherByBothDecoders() {
    for (String errorClass : new String[] {"boom", "", "x".repeat(400 * 1024), "other"}) {
      String json =
          "{\"type\":\"error\",\"v\":1,\"ts\":1700000000000,\"requestId\":\"r\",\"model\":\"m\","
              + "\"elapsedNs\":7,\"seq\":0,\"errorClass\":\""
              + errorClass
              + "\"}";
      assertEquals(ErrorClasses.OTHER, TokenEventCodec.decode(json).errorClass());
      assertEquals(ErrorClasses.OTHER, decoder.decode(null, utf8(json)).errorClass());
      assertTrue(compare(null, utf8("{ " + json.substring(1))));
    }
    long scanned = decoder.scanned;
    String known =
        "{\"type\":\"error\",\"v\":1,\"ts\":1700000000000,\"requestId\":\"r\",\"model\":\"m\","
            + "\"elapsedNs\":7,\"seq\":0,\"errorClass\":\"http_429\"}";
    assertEquals("http_429", decoder.decode(null, utf8(known)).errorClass());
    assertEquals(scanned + 1, decoder.scanned);
  }

  /** Labels at and past their bounds, each to its problem (null: within them). */
  private static Map<Map<String, String>, String> boundedLabels() {
    Map<Map<String, String>, String> labels = new java.util.LinkedHashMap<>();
    int most = TokenEventBounds.MAX_LABELS;
    labels.put(numbered(most), null);
    labels.put(numbered(most + 1), "labels has 17 entries, more than 16");
    labels.put(numbered(1000), "labels has 1000 entries, more than 16");
    labels.put(Map.of("", ""), null);
    labels.put(Map.of("n".repeat(64), "v"), null);
    labels.put(Map.of("n".repeat(65), "v"), "a label name is 65 characters, more than 64");
    labels.put(Map.of("n".repeat(40_000), "v"), "a label name is 40000 characters, more than 64");
    // past Jackson's own limit on a name (50,000), which data binding names first
    labels.put(Map.of("n".repeat(409_600), "v"), "labels: Name length (");
    labels.put(Map.of("k", "v".repeat(256)), null);
    labels.put(Map.of("k", "é".repeat(256)), null);
    labels.put(Map.of("k", "v".repeat(257)), "label k is 257 characters, more than 256");
    labels.put(Map.of("k", "v".repeat(409_600)), "label k is 409600 characters, more than 256");
    return labels;
  }

  private static Map<String, String> numbered(int n) {
    Map<String, String> labels = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      labels.put("label" + i, "value" + i);
    }
    return labels;
  }

  /**
   * Both decoders on a record, compact and with a space (the reference path): they agree; the
   * reference's message, or null when accepted.
   */
  private String verdict(String json) {
    compare(null, utf8(json));
    compare(null, utf8("{ " + json.substring(1)));
    return reject(utf8(json));
  }

  /** These fields with {@code name} set to {@code value} (JSON text), added when absent. */
  private static String with(List<String[]> fields, String name, String value) {
    List<String[]> set = copy(fields);
    int at = indexOf(set, name);
    if (at >= 0) {
      set.get(at)[1] = value;
    } else {
      set.add(new String[] {name, value});
    }
    return json(set);
  }

  private static String quoted(Object value) {
    try {
      return io.tpotstream.common.Json.MAPPER.writeValueAsString(value);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** One event of each type with every field its type may carry, flags set. */
  private static List<TokenEvent> everyFieldOfEachType() {
    Map<String, String> labels = Map.of("concurrency", "5", "target", "gw");
    long ts = 1_700_000_000_000L;
    return List.of(
        TokenEvent.start(ts, "run-1", "req-1", "model-a", labels, 1_250L, "p-1")
            .asWarmup()
            .withSource("producer"),
        TokenEvent.token(ts, "run-1", "req-1", "model-a", labels, 9L, 2, 3, TokenKind.TOOL, "p-1")
            .asCoalesced()
            .withClientLag(1_500)
            .asWarmup()
            .withSource("proxy"),
        TokenEvent.end(ts, "run-1", "req-1", "model-a", labels, 90L, 3, 12, 4, "stop", 1, "p-1")
            .withCachedTokens(8)
            .asWarmup()
            .withSource("producer"),
        TokenEvent.error(
                ts, "run-1", "req-2", "model-b", labels, 30L, 1, "http_429", 429, "slow", 2, "p-1")
            .withSource("producer"),
        TokenEvent.heartbeat(ts, "run-1", "p-1", ts - 200, true, 1_500L, 700L, 3L)
            .withDroppedEvents(4)
            .withSource("proxy"),
        // a proxy's start with its prompt's block hashes (read by data binding: an array)
        TokenEvent.start(ts, "run-1", "req-3", "model-a", labels, null, "p-2")
            .withPrefix(List.of(Long.MIN_VALUE, -1L, 0L, 9_007_199_254_740_993L), 5)
            .withSource("proxy"),
        // an end with what the engine said of the request (read by data binding: an object)
        TokenEvent.end(ts, "run-1", "req-4", "model-a", labels, 90L, 3, 12, 4, "stop", 1, "p-1")
            .withCachedTokens(8)
            .withEngineTiming(new EngineTiming(12_300L, 85_200L, 9_100L, 1_240_500L))
            .withSource("producer"),
        // one scrape interval of an engine (read by data binding)
        TokenEvent.engine(ts, "run-1", "model-a", labels, "p-1", fullScrape())
            .withSource("producer"));
  }

  /** An engine's scrape with every field, each histogram's bounds and counts distinct. */
  static EngineSample fullScrape() {
    return new EngineSample(
        "http://127.0.0.1:8000/metrics",
        "vllm",
        5_000,
        1,
        2,
        "HTTP 503 from http://127.0.0.1:8000/metrics",
        List.of("vllm:a", "vllm:b"),
        1,
        new EngineHistogram(List.of(10_000L, 25_000L, 50_000L), List.of(3L, 120L, 4L, 0L)),
        new EngineHistogram(List.of(100_000L, 250_000L), List.of(7L, 2L, 1L)),
        new EngineHistogram(List.of(1_000_000L), List.of(9L, 1L)),
        new EngineHistogram(List.of(5_000L, 50_000L), List.of(8L, 2L, 0L)),
        3.0,
        1.5,
        0.25,
        2_048L,
        1_024L);
  }

  /** A field an engine event must not carry: one of a request's. */
  private static boolean misplaced(TokenEvent base, String field) {
    return base.type() == EventType.ENGINE
        && TokenEventRules.problem(
                true,
                EventType.ENGINE,
                1,
                base.ts(),
                TokenEventBounds.present(base)
                    | 1L << List.of(TokenEventDecoder.FIELD_NAMES).indexOf(field))
            != null;
  }

  private static int indexOf(List<String[]> fields, String name) {
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i)[0].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static List<String[]> copy(List<String[]> fields) {
    List<String[]> copy = new ArrayList<>();
    for (String[] f : fields) {
      copy.add(f.clone());
    }
    return copy;
  }

  @Test
  void almostEveryEventAProducerWritesIsReadByTheCompactScanner() {
    Random random = new Random(5);
    for (int i = 0; i < 10_000; i++) {
      TokenEvent e = event(random);
      compare(key(random, e), TokenEventCodec.encode(e));
    }
    assertTrue(decoder.scanned > 9_000, "the compact scanner read " + decoder.scanned);
  }

  @Test
  void theRequestIdIsTheRecordKeyWhenTheyMatch() {
    TokenEvent token =
        TokenEvent.token(
            1_700_000_000_005L, "r", "req-é-1", "m", null, 7L, 0, 1, TokenKind.CONTENT, "p");
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
        TokenEvent.start(
            1_700_000_000_005L, "r", "q", "model-a", Map.of("b", "2", "a", "1"), null, "p");
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
        "{\"type\":\"token\",\"v\":2,\"ts\":1700000000005,\"requestId\":\"r\",\"model\":\"m\",\"elapsedNs\":7,"
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
          "{\"type\":\"token\",\"v\":1,\"ts\":1700000000005,\"requestId\":\"r\",\"model\":\"m\",\"elapsedNs\":7,"
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
    } else if (expected.type() == EventType.ENGINE) {
      assertNull(actual.requestKey(), on);
      assertNull(actual.producerId(), on); // kept for heartbeats only
    } else {
      assertEquals(expected.requestId(), actual.requestId(), on);
      assertArrayEquals(
          expected.requestId().getBytes(StandardCharsets.UTF_8), actual.requestKey(), on);
      assertEquals(expected.errorClass(), actual.errorClass(), on);
      assertNull(actual.producerId(), on); // kept for heartbeats only
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
    assertEquals(
        expected.promptTokens(), actual.hasPromptTokens() ? actual.promptTokens() : null, on);
    assertEquals(
        expected.cachedTokens(), actual.hasCachedTokens() ? actual.cachedTokens() : null, on);
    assertEquals(expected.arrivedCoalesced(), actual.coalesced(), on);
    assertEquals(expected.clientLagOrZero(), actual.clientLagUs(), on);
    assertEquals(expected.inWarmup(), actual.warmup(), on);
    assertEquals(expected.model(), actual.model(), on);
    assertEquals(expected.labels(), actual.labels(), on);
    assertEquals(expected.engine(), actual.engine(), on);
    assertEquals(expected.engineTiming(), actual.engineTiming(), on);
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
    if (r.nextInt(40) == 0) {
      return TokenEvent.engine(ts, "run", model, labels, "p-" + r.nextInt(3), scrape(r));
    }
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
            Integer cached = prompt == null || r.nextBoolean() ? null : r.nextInt(13);
            EngineTiming timing =
                r.nextInt(8) != 0
                    ? null
                    : new EngineTiming(
                        r.nextBoolean() ? null : (long) r.nextInt(50_000),
                        (long) r.nextInt(900_000),
                        (long) r.nextInt(90_000),
                        r.nextBoolean() ? null : (long) r.nextInt(9_000_000));
            yield TokenEvent.end(
                    ts, "run", id, model, labels, at, n, prompt, usage, "stop", bad, "p-1")
                .withCachedTokens(cached)
                .withEngineTiming(timing);
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
    if (e.type() == EventType.TOKEN && r.nextInt(5) == 0) {
      e = e.withClientLag(1 + r.nextInt(20_000));
    }
    if (e.type() != EventType.HEARTBEAT && r.nextInt(6) == 0) {
      e = e.asWarmup();
    }
    if (r.nextInt(3) == 0) {
      e = e.withSource(r.nextBoolean() ? "producer" : "proxy");
    }
    return e;
  }

  /** A scrape of an engine: a failure, or some of the histograms and gauges. */
  private static EngineSample scrape(Random r) {
    if (r.nextInt(5) == 0) {
      return EngineSample.failed("http://e:8000/metrics", "vllm", 1 + r.nextInt(3), "refused");
    }
    EngineHistogram[] h = new EngineHistogram[4];
    for (int i = 0; i < h.length; i++) {
      if (r.nextInt(4) != 0) {
        List<Long> bounds = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        long bound = 0;
        for (int b = r.nextInt(12); b > 0; b--) {
          bound += 1 + r.nextInt(100_000);
          bounds.add(bound);
          counts.add((long) r.nextInt(300));
        }
        counts.add((long) r.nextInt(3));
        h[i] = new EngineHistogram(bounds, counts);
      }
    }
    long queries = r.nextInt(10_000);
    return new EngineSample(
        "http://e:8000/metrics",
        r.nextBoolean() ? "vllm" : "sglang",
        r.nextBoolean() ? 0 : 10_000,
        1,
        r.nextInt(2),
        null,
        r.nextBoolean() ? null : List.of("vllm:num_requests_waiting"),
        r.nextBoolean() ? null : r.nextInt(2),
        h[0],
        h[1],
        h[2],
        h[3],
        r.nextBoolean() ? null : (double) r.nextInt(64),
        r.nextBoolean() ? null : (double) r.nextInt(64),
        r.nextBoolean() ? null : r.nextInt(1_001) / 1_000.0,
        r.nextBoolean() ? null : queries,
        r.nextBoolean() ? null : (long) r.nextInt((int) queries + 1));
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
      return utf8(json(fields));
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

  /** An object of these fields (values as JSON text), in their order, without spaces. */
  private static String json(List<String[]> fields) {
    StringBuilder out = new StringBuilder("{");
    for (int f = 0; f < fields.size(); f++) {
      out.append(f == 0 ? "" : ",")
          .append('"')
          .append(fields.get(f)[0])
          .append("\":")
          .append(fields.get(f)[1]);
    }
    return out.append('}').toString();
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
