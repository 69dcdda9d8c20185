package io.tpotstream.app.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.aggregator.topology.DeadLetterHeaders;
import io.tpotstream.app.deploy.DeployFiles;
import io.tpotstream.common.Json;
import io.tpotstream.common.Records;
import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineSums;
import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.event.ErrorClasses;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.common.slo.ObjectiveResult;
import io.tpotstream.common.slo.SloResult;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.ClientTouch;
import io.tpotstream.common.summary.EncodedHistograms;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.record.FlatRecord;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The schemas of docs/schemas name exactly the fields and closed values the code writes, accept the
 * records the codecs write, and reject known-bad records: a missing required field, a wrong type, a
 * value out of range. Token events the schema rejects for a reason the aggregator's reader also has
 * are rejected by {@link TokenEventCodec} too.
 */
class PublishedSchemasTest {
  private static final PublishedSchemas EVENT = PublishedSchemas.load(PublishedSchemas.TOKEN_EVENT);
  private static final PublishedSchemas SUMMARY =
      PublishedSchemas.load(PublishedSchemas.WINDOW_SUMMARY);
  private static final PublishedSchemas METRICS =
      PublishedSchemas.load(PublishedSchemas.METRICS_RECORD);
  private static final PublishedSchemas DEAD_LETTER =
      PublishedSchemas.load(PublishedSchemas.DEAD_LETTER_HEADERS);
  private static final long TS = 1_767_225_600_000L;

  @Test
  void everySchemaIsDraft202012WithAnIdATitleAndADescribedField() {
    for (String file : PublishedSchemas.ALL) {
      JsonNode schema = PublishedSchemas.load(file).text;
      assertEquals(
          "https://json-schema.org/draft/2020-12/schema", schema.path("$schema").asText(), file);
      assertTrue(schema.path("$id").asText().startsWith("urn:tpot-stream:schema:"), file);
      assertTrue(schema.path("$id").asText().endsWith(":v1"), file);
      assertFalse(schema.path("title").asText().isEmpty(), file);
      assertFalse(schema.path("description").asText().isEmpty(), file);
      List<String> undescribed = new ArrayList<>();
      undescribedFields(schema, schema, "", undescribed);
      assertEquals(List.of(), undescribed, file);
    }
  }

  @Test
  void tokenEventSchemaNamesTheFieldsAndValuesTheCodeWrites() {
    assertEquals(order(TokenEvent.class), names(EVENT.text.get("properties")));
    JsonNode properties = EVENT.text.get("properties");
    assertEquals(
        Arrays.stream(EventType.values()).map(EventType::wire).toList(),
        texts(properties.at("/type/enum")));
    assertEquals(
        Arrays.stream(TokenKind.values()).map(TokenKind::wire).toList(),
        texts(properties.at("/kind/enum")));
    assertEquals(ErrorClasses.KNOWN, texts(properties.at("/errorClass/enum")));
    assertEquals(order(EngineSample.class), names(properties.at("/engine/properties")));
    assertEquals(order(EngineTiming.class), names(properties.at("/engineTiming/properties")));
    assertEquals(
        Arrays.stream(EngineHistogram.class.getRecordComponents()).map(c -> c.getName()).toList(),
        names(EVENT.text.at("/$defs/engineHistogram/properties")));
  }

  @Test
  void summaryAndMetricsSchemasNameTheFieldsTheCodeWrites() {
    JsonNode defs = SUMMARY.text.get("$defs");
    assertEquals(order(WindowSummary.class), names(SUMMARY.text.get("properties")));
    assertEquals(order(LatencySummary.class), names(defs.at("/latency/properties")));
    assertEquals(order(RequestCounts.class), names(defs.at("/requests/properties")));
    assertEquals(order(ClientTouch.class), names(defs.at("/clientTouched/properties")));
    assertEquals(order(SloResult.class), names(defs.at("/slo/properties")));
    assertEquals(
        order(ObjectiveResult.class),
        names(defs.at("/slo/properties/objectives/items/properties")));
    assertEquals(order(EncodedHistograms.class), names(defs.at("/histograms/properties")));
    assertEquals(order(EngineView.class), names(defs.at("/engine/properties")));
    assertEquals(order(EngineView.Latency.class), names(defs.at("/engineLatency/properties")));
    assertEquals(order(EngineView.Interval.class), names(defs.at("/interval/properties")));
    assertEquals(order(EngineView.Gauge.class), names(defs.at("/gauge/properties")));
    assertEquals(
        order(EngineView.Outside.class), names(defs.at("/engine/properties/outside/properties")));
    assertEquals(order(EngineView.Added.class), names(defs.at("/added/properties")));

    List<String> columns = new ArrayList<>(FlatRecord.LEADING_COLUMNS);
    columns.addAll(FlatRecord.STAT_COLUMNS);
    assertEquals(columns, names(METRICS.text.get("properties")));
    assertEquals(
        List.of(FlatRecord.LABEL_PREFIX),
        names(METRICS.text.get("patternProperties")).stream().map(p -> p.substring(1)).toList());
  }

  @Test
  void deadLetterSchemaNamesEveryHeaderTheAggregatorSets() throws IllegalAccessException {
    List<String> constants = new ArrayList<>();
    for (Field f : DeadLetterHeaders.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == String.class) {
        constants.add((String) f.get(null));
      }
    }
    assertEquals(
        constants.stream().sorted().toList(),
        names(DEAD_LETTER.text.get("properties")).stream().sorted().toList());
  }

  @Test
  void everyKindOfEventTheCodecWritesIsValidAndFullyDescribed() throws IOException {
    for (TokenEvent event : events()) {
      JsonNode json = Json.MAPPER.readTree(TokenEventCodec.encode(event));
      assertEquals(List.of(), EVENT.undocumented(json), json.toString());
    }
  }

  @Test
  void summariesAndTheirFlatRecordsAreValidAndFullyDescribed() throws IOException {
    for (WindowSummary summary : summaries()) {
      JsonNode json = Json.MAPPER.readTree(WindowSummaryCodec.encode(summary));
      assertEquals(List.of(), SUMMARY.undocumented(json), json.toString());
      JsonNode flat = Json.MAPPER.readTree(FlatRecord.of(summary).toJson());
      assertEquals(List.of(), METRICS.undocumented(flat), flat.toString());
    }
  }

  @Test
  void aFlatRecordWithTheEnginesViewIsValidFullyDescribedAndHeldToItsBounds() throws IOException {
    EngineView.Interval low = interval("0.500", "1.000");
    EngineView.Interval high = interval("1.000", null);
    EngineView.Latency latency = new EngineView.Latency(40, low, low, high, high);
    EngineView.Gauge gauge = new EngineView.Gauge(2, new BigDecimal("0.9"), new BigDecimal("0.5"));
    EngineView.Added added = new EngineView.Added(low, interval("-0.250", "3.000"), high);
    EngineView engine =
        new EngineView(
            2,
            1,
            List.of("queue"),
            0,
            latency,
            latency,
            latency,
            latency,
            gauge,
            gauge,
            gauge,
            new BigDecimal("0.2500"),
            new EngineView.Outside(added, added));
    String good =
        new String(FlatRecord.of(Records.with(summaries().get(0), "engine", engine)).toJson());
    JsonNode flat = Json.MAPPER.readTree(good);
    assertEquals(List.of(), METRICS.undocumented(flat), flat.toString());
    assertTrue(flat.has("outside_engine_tpot_p99_lo_ms") && flat.has("engine_missing"), good);

    List<Consumer<ObjectNode>> mutations =
        List.of(
            m -> m.remove("engine_scrapes"),
            m -> m.remove("engine_failed_scrapes"),
            m -> m.put("engine_kv_cache_max", 1.5),
            m -> m.put("engine_prefix_cache_hit_ratio", -0.1),
            m -> m.put("engine_tpot_p99_lo_ms", "0.5"),
            m -> m.put("engine_missing", ""));
    for (int i = 0; i < mutations.size(); i++) {
      ObjectNode metrics = (ObjectNode) Json.MAPPER.readTree(good);
      mutations.get(i).accept(metrics);
      assertFalse(METRICS.problems(metrics).isEmpty(), "mutation " + i + ": " + metrics);
    }
  }

  private static EngineView.Interval interval(String loMs, String hiMs) {
    return new EngineView.Interval(
        new BigDecimal(loMs), hiMs == null ? null : new BigDecimal(hiMs));
  }

  @Test
  void theDocsSamplesAreValid() throws IOException {
    String formats = Files.readString(DeployFiles.ROOT.resolve("docs/formats-and-replay.md"));
    assertEquals(List.of(), EVENT.undocumented(Json.MAPPER.readTree(firstJsonBlock(formats))));
    String sink = Files.readString(DeployFiles.ROOT.resolve("docs/sink.md"));
    assertEquals(List.of(), METRICS.undocumented(Json.MAPPER.readTree(firstJsonBlock(sink))));
  }

  private static String firstJsonBlock(String page) {
    int start = page.indexOf("```json\n") + "```json\n".length();
    return page.substring(start, page.indexOf("```", start));
  }

  static Stream<Arguments> badEventsTheReaderRejectsToo() {
    return Stream.of(
        bad("start without a type", START, e -> e.remove("type")),
        bad("a token without seq", TOKEN, e -> e.remove("seq")),
        bad("a token without elapsedNs", TOKEN, e -> e.remove("elapsedNs")),
        bad("an end without elapsedNs", END, e -> e.remove("elapsedNs")),
        bad("an error without errorClass", ERROR, e -> e.remove("errorClass")),
        bad("a start without requestId", START, e -> e.remove("requestId")),
        bad("a token without model", TOKEN, e -> e.remove("model")),
        bad("a heartbeat without watermark", HEARTBEAT, e -> e.remove("watermark")),
        bad("a heartbeat without producerId", HEARTBEAT, e -> e.remove("producerId")),
        bad("ts as a string", TOKEN, e -> e.put("ts", Long.toString(TS))),
        bad("ts of 0", TOKEN, e -> e.put("ts", 0)),
        bad("version 2", START, e -> e.put("v", 2)),
        bad("a negative seq", TOKEN, e -> e.put("seq", -3)),
        bad("a fractional seq", TOKEN, e -> e.put("seq", 1.5)),
        bad("seq past an int", TOKEN, e -> e.put("seq", 1L << 31)),
        bad("negative tokens", TOKEN, e -> e.put("tokens", -1)),
        bad("negative completion tokens", END, e -> e.put("completionTokens", -1)),
        bad("an unknown type", START, e -> e.put("type", "stop")),
        bad("an unknown kind", TOKEN, e -> e.put("kind", "image")),
        bad(
            "a number as a label",
            START,
            e -> e.withObjectProperty("labels").put("concurrency", 4)),
        bad("a flag as a string", TOKEN, e -> e.put("coalesced", "true")),
        bad("a model as a number", START, e -> e.put("model", 7)),
        bad("an engine event without engine", ENGINE, e -> e.remove("engine")),
        bad("an engine event without model", ENGINE, e -> e.remove("model")),
        bad("an engine event without producerId", ENGINE, e -> e.remove("producerId")),
        bad("an engine event with a requestId", ENGINE, e -> e.put("requestId", "r")),
        bad("an engine event of a warm-up", ENGINE, e -> e.put("warmup", true)),
        bad(
            "an engine without endpoint",
            ENGINE,
            e -> e.withObjectProperty("engine").remove("endpoint")),
        bad(
            "a negative bucket count",
            ENGINE,
            e ->
                e.withObjectProperty("engine")
                    .withObjectProperty("tpot")
                    .putArray("counts")
                    .add(-1)),
        bad("a gauge as a string", ENGINE, e -> e.withObjectProperty("engine").put("running", "3")),
        bad(
            "a KV cache used past its size",
            ENGINE,
            e -> e.withObjectProperty("engine").put("kvCacheUsage", 1.5)),
        bad("engineTiming on a token", TOKEN, e -> e.putObject("engineTiming").put("ttftUs", 5)),
        bad("engine on a heartbeat", HEARTBEAT, e -> e.putObject("engine").put("endpoint", "u")),
        bad(
            "an engine's TTFT past an hour",
            END,
            e -> e.putObject("engineTiming").put("ttftUs", 3_600_000_001L)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void badEventsTheReaderRejectsToo(String what, ObjectNode event) {
    assertFalse(EVENT.problems(event).isEmpty(), what + " passes the schema: " + event);
    assertThrows(TokenEventFormatException.class, () -> TokenEventCodec.decode(event.toString()));
  }

  @Test
  void valuesNoTpotWriterSendsAreRejected() {
    ObjectNode error = json(ERROR);
    error.put("errorClass", "http_418");
    assertFalse(EVENT.problems(error).isEmpty(), "an error class the producer never writes");
    ObjectNode heartbeat = json(HEARTBEAT);
    heartbeat.put("final", false);
    assertFalse(EVENT.problems(heartbeat).isEmpty(), "final is written true or not at all");
    ObjectNode token = json(TOKEN);
    token.put("source", "curl");
    assertFalse(EVENT.problems(token).isEmpty(), "source is producer or proxy");
    ObjectNode start = json(START);
    start.put("nextVersionField", 1);
    assertEquals(List.of(), EVENT.problems(start), "unknown fields are allowed: readers skip them");
    assertFalse(EVENT.undocumented(start).isEmpty(), "and found by the closed reading");
  }

  @Test
  void badSummariesAreRejected() throws IOException {
    String good = WindowSummaryCodec.encodeToString(summaries().get(0));
    List<Consumer<ObjectNode>> mutations =
        List.of(
            s -> s.remove("histograms"),
            s -> s.remove("series"),
            s -> s.put("v", 2),
            s -> s.withObjectProperty("tpot").put("count", "5"),
            s -> s.withObjectProperty("tpot").remove("p99Ms"),
            s -> s.withObjectProperty("requests").put("errorRate", 1.5),
            s -> s.withObjectProperty("requests").remove("failed"),
            s -> s.withObjectProperty("requests").withObjectProperty("errors").put("http_5xx", "2"),
            s -> s.put("windowStart", "yesterday"),
            s -> s.withObjectProperty("histograms").put("tpot", "not base64!"),
            s -> s.withObjectProperty("clientTouched").putArray("moved").add("p42"),
            s -> s.withObjectProperty("slo").remove("met"),
            s -> s.put("tokensPerSecond", -1),
            s -> s.withObjectProperty("engine").remove("scrapes"),
            s -> s.withObjectProperty("engine").withObjectProperty("tpot").putObject("p50Ms"),
            s -> s.withObjectProperty("engine").withObjectProperty("running").put("max", -1),
            s -> s.withObjectProperty("engine").put("prefixCacheHitRate", 1.5),
            s ->
                s.withObjectProperty("engine")
                    .withObjectProperty("outside")
                    .withObjectProperty("tpot")
                    .remove("p99Ms"));
    for (int i = 0; i < mutations.size(); i++) {
      ObjectNode summary = (ObjectNode) Json.MAPPER.readTree(good);
      mutations.get(i).accept(summary);
      assertFalse(SUMMARY.problems(summary).isEmpty(), "mutation " + i + ": " + summary);
    }
  }

  @Test
  void badMetricsRecordsAreRejected() throws IOException {
    String good = new String(FlatRecord.of(summaries().get(0)).toJson());
    List<Consumer<ObjectNode>> mutations =
        List.of(
            m -> m.remove("series"),
            m -> m.remove("error_rate"),
            m -> m.put("tpot_p99_ms", "12.5"),
            m -> m.remove("tpot_p99_ms"),
            m -> m.put("ts", 1.5),
            m -> m.put("label_concurrency", 4),
            m -> m.remove("slo_missed"),
            m -> m.put("client_suspect", "no"),
            m -> m.remove("client_touched_gaps"));
    for (int i = 0; i < mutations.size(); i++) {
      ObjectNode metrics = (ObjectNode) Json.MAPPER.readTree(good);
      mutations.get(i).accept(metrics);
      assertFalse(METRICS.problems(metrics).isEmpty(), "mutation " + i + ": " + metrics);
    }
  }

  @Test
  void deadLetterHeadersAreCheckedAsTheTableSays() {
    Map<String, String> good = new LinkedHashMap<>();
    good.put("traceparent", "00-abc-def-01");
    good.put(DeadLetterHeaders.SOURCE_TOPIC, "tpot.token-events");
    good.put(DeadLetterHeaders.SOURCE_PARTITION, "2");
    good.put(DeadLetterHeaders.SOURCE_OFFSET, "1041");
    good.put(DeadLetterHeaders.REASON, "not a token event: missing seq in '{…}'");
    good.put(DeadLetterHeaders.VALUE_TRUNCATED, "true");
    good.put(DeadLetterHeaders.VALUE_SIZE, "70000");
    assertEquals(List.of(), DEAD_LETTER.problems(PublishedSchemas.headers(good)));
    List<Consumer<Map<String, String>>> mutations =
        List.of(
            h -> h.remove(DeadLetterHeaders.REASON),
            h -> h.remove(DeadLetterHeaders.SOURCE_OFFSET),
            h -> h.put(DeadLetterHeaders.SOURCE_PARTITION, "two"),
            h -> h.remove(DeadLetterHeaders.VALUE_SIZE),
            h -> h.put(DeadLetterHeaders.KEY_TRUNCATED, "yes"),
            h -> h.put(DeadLetterHeaders.REASON, "x".repeat(1025)));
    for (int i = 0; i < mutations.size(); i++) {
      Map<String, String> headers = new LinkedHashMap<>(good);
      mutations.get(i).accept(headers);
      assertFalse(
          DEAD_LETTER.problems(PublishedSchemas.headers(headers)).isEmpty(),
          "mutation " + i + ": " + headers);
    }
  }

  private static final TokenEvent START =
      TokenEvent.start(TS, "run-1", "req-1", "model-a", Map.of("concurrency", "4"), 1_200L, "p-1");
  private static final TokenEvent TOKEN =
      TokenEvent.token(
          TS + 150,
          "run-1",
          "req-1",
          "model-a",
          Map.of(),
          150_000_000L,
          0,
          2,
          TokenKind.CONTENT,
          "p-1");
  private static final TokenEvent END =
      TokenEvent.end(
          TS + 900, "run-1", "req-1", "model-a", null, 900_000_000L, 40, 12, 40, "stop", 1, "p-1");
  private static final TokenEvent ERROR =
      TokenEvent.error(
          TS + 300,
          "run-1",
          "req-2",
          "model-a",
          null,
          300_000_000L,
          3,
          "http_5xx",
          500,
          "HTTP 500 from http://127.0.0.1:8000/v1/chat/completions: the server failed",
          null,
          "p-1");
  private static final TokenEvent HEARTBEAT =
      TokenEvent.heartbeat(TS + 1_000, "run-1", "p-1", TS + 999, true, 420L, 1_300L, 2L);

  /** A scrape of a vLLM engine with every field. */
  private static final EngineSample SCRAPE =
      new EngineSample(
          "http://127.0.0.1:8000/metrics",
          "vllm",
          5_000,
          1,
          1,
          "HTTP 503 from http://127.0.0.1:8000/metrics",
          List.of("vllm:request_queue_time_seconds"),
          0,
          new EngineHistogram(List.of(10_000L, 25_000L, 50_000L), List.of(3L, 120L, 4L, 0L)),
          new EngineHistogram(List.of(100_000L), List.of(2L, 1L)),
          new EngineHistogram(List.of(1_000_000L), List.of(2L, 1L)),
          new EngineHistogram(List.of(5_000L), List.of(3L, 0L)),
          3.0,
          0.0,
          0.12,
          2_048L,
          1_024L);

  private static final TokenEvent ENGINE =
      TokenEvent.engine(TS + 750, "run-1", "model-a", Map.of("concurrency", "4"), "p-1", SCRAPE);

  /** One event of every type, with every optional field the producer and the proxy write. */
  private static List<TokenEvent> events() {
    return List.of(
        START.withSource("producer"),
        START.asWarmup(),
        TOKEN.asCoalesced().withClientLag(1_800).withSource("proxy"),
        END.withCachedTokens(8),
        ERROR,
        HEARTBEAT.withSource("producer"),
        TokenEvent.heartbeat(TS, "run-2", "proxy-1", TS, false, null)
            .withDroppedEvents(12)
            .withSource("proxy"),
        END.withEngineTiming(new EngineTiming(12_300L, 85_200L, 9_100L, 1_240_500L)),
        ENGINE.withSource("producer"),
        TokenEvent.engine(
            TS + 760,
            "run-1",
            "model-b",
            null,
            "p-1",
            EngineSample.failed(
                "http://127.0.0.1:8001/metrics", "vllm", 2, "cannot connect to 127.0.0.1:8001")));
  }

  /**
   * A window with every section (open loop, client touch, SLO, prompt cache, engine), and an empty
   * one.
   */
  private static List<WindowSummary> summaries() {
    WindowStats full = new WindowStats();
    for (int i = 1; i <= 200; i++) {
      full.tpot.recordMicros(20_000 + 37L * i);
    }
    full.tpot.recordMicros(150_000);
    full.clientTouched(150_000, 120_000, 1);
    full.ttft.recordMicros(180_000);
    full.requestTpot.recordMicros(21_000);
    full.e2e.recordMicros(2_400_000);
    full.scheduleLag.recordMicros(900);
    full.ttftFromIntended.recordMicros(180_900);
    full.started(3);
    full.completed(1, false);
    full.failed("http_5xx", 2);
    full.outputTokens(202);
    full.clientPause(400);
    full.clientLag(1_300);
    full.coalescedGaps(3);
    full.good(1);
    full.promptCache(1, 1_500, 1_024);
    EngineSums engine = new EngineSums();
    engine.add(SCRAPE);
    engine.add(
        Records.with(
            SCRAPE, "tpot", new EngineHistogram(List.of(10_000L), List.of(3L, 1L)))); // unmerged
    full.engine(engine);
    WindowSummary summary =
        full.toSummary(
            "model-a{concurrency=4}",
            "model-a",
            Map.of("concurrency", "4"),
            TS,
            TS + 10_000,
            1_000,
            SloSpec.parse("tpot_p99=50ms,error_rate=1%", "ttft=1s"));
    assertTrue(summary.clientSuspect(), "the sample summary has a suspect window");
    assertEquals(1L, summary.engine().tpot().unmerged(), "and every engine field");
    assertTrue(summary.engine().outside().tpot().p50Ms().loMs() != null);
    WindowSummary empty = new WindowStats().toSummary("model-b", "model-b", null, TS, TS + 500);
    return List.of(summary, empty);
  }

  private static Arguments bad(String what, TokenEvent event, Consumer<ObjectNode> change) {
    ObjectNode json = json(event);
    change.accept(json);
    return Arguments.of(what, json);
  }

  private static ObjectNode json(TokenEvent event) {
    return (ObjectNode) Json.MAPPER.valueToTree(event);
  }

  private static List<String> order(Class<?> type) {
    return List.of(type.getAnnotation(JsonPropertyOrder.class).value());
  }

  private static List<String> names(JsonNode object) {
    List<String> names = new ArrayList<>();
    object.fieldNames().forEachRemaining(names::add);
    return names;
  }

  private static List<String> texts(JsonNode array) {
    List<String> texts = new ArrayList<>();
    array.forEach(n -> texts.add(n.asText()));
    return texts;
  }

  /** Fields under any {@code properties} with no description, theirs or their {@code $ref}'s. */
  private static void undescribedFields(
      JsonNode root, JsonNode node, String path, List<String> undescribed) {
    if (node.isObject() && node.has("properties")) {
      for (Map.Entry<String, JsonNode> f : node.get("properties").properties()) {
        JsonNode field = f.getValue();
        JsonNode target =
            field.has("$ref") ? root.at(field.get("$ref").asText().substring(1)) : field;
        if (!field.has("description") && !target.has("description")) {
          undescribed.add(path + "/" + f.getKey());
        }
      }
    }
    for (Map.Entry<String, JsonNode> f : node.properties()) {
      if (f.getKey().equals("if")) {
        continue; // a condition's properties restate fields described beside it
      }
      undescribedFields(root, f.getValue(), path + "/" + f.getKey(), undescribed);
    }
  }
}
