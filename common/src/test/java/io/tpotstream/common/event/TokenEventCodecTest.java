package io.tpotstream.common.event;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineTiming;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TokenEventCodecTest {
  private static final Map<String, String> LABELS = Map.of("target", "gw-a", "concurrency", "10");

  /** A one-token chunk of req-1 in run-1. */
  private static TokenEvent token(long ts, long elapsedNs, int seq, TokenKind kind) {
    return TokenEvent.token(
        ts, "run-1", "req-1", "model-a", LABELS, elapsedNs, seq, 1, kind, "p-1");
  }

  static List<TokenEvent> oneOfEachType() {
    return List.of(
        TokenEvent.start(1_700_000_000_000L, "run-1", "req-1", "model-a", LABELS, 1_250L, "p-1"),
        token(1_700_000_000_100L, 99_000_000L, 0, TokenKind.REASONING),
        TokenEvent.token(
            1_700_000_000_102L,
            "run-1",
            "req-1",
            "model-a",
            LABELS,
            101_600_000L,
            1,
            3,
            TokenKind.CONTENT,
            "p-1"),
        TokenEvent.end(
            1_700_000_000_500L,
            "run-1",
            "req-1",
            "model-a",
            LABELS,
            500_000_000L,
            2,
            12,
            4,
            "stop",
            1,
            "p-1"),
        TokenEvent.error(
            1_700_000_000_600L,
            "run-1",
            "req-2",
            "model-b",
            null,
            30_000_000L,
            0,
            "http_429",
            429,
            "HTTP 429 from http://127.0.0.1:8000/v1/chat/completions: rate limited",
            null,
            "p-1"),
        TokenEvent.heartbeat(1_700_000_001_000L, "run-1", "p-1", 1_700_000_000_800L, false, 1_350L),
        TokenEvent.heartbeat(1_700_000_002_000L, "run-1", "p-1", 1_700_000_001_800L, true, null),
        TokenEvent.heartbeat(
            1_700_000_003_000L, "run-1", "p-1", 1_700_000_002_800L, false, 900L, 1_400L, 12L),
        TokenEvent.token(
                1_700_000_000_103L,
                "run-1",
                "req-3",
                "model-a",
                null,
                2_000_000L,
                4,
                1,
                TokenKind.CONTENT,
                "p-1")
            .asCoalesced()
            .asWarmup()
            .withSource("proxy"),
        TokenEvent.end(
                1_700_000_000_700L,
                "run-1",
                "req-3",
                "model-a",
                LABELS,
                700_000_000L,
                5,
                12,
                5,
                "stop",
                null,
                "p-1")
            .withEngineTiming(new EngineTiming(12_300L, 85_200L, 9_100L, 1_240_500L)),
        TokenEvent.engine(1_700_000_000_750L, "run-1", "model-a", LABELS, "p-1", scrape()),
        TokenEvent.engine(
            1_700_000_000_760L,
            "run-1",
            "model-b",
            null,
            "p-1",
            EngineSample.failed(
                "http://127.0.0.1:8001/metrics",
                "vllm",
                1,
                "cannot connect to 127.0.0.1:8001 (connection refused)")));
  }

  /** A scrape of vLLM's endpoint with every field (the design's example). */
  static EngineSample scrape() {
    EngineHistogram tpot =
        new EngineHistogram(List.of(10_000L, 25_000L, 50_000L), List.of(3L, 120L, 4L, 0L));
    EngineHistogram ttft = new EngineHistogram(List.of(100_000L), List.of(2L, 1L));
    return new EngineSample(
        "http://127.0.0.1:8000/metrics",
        "vllm",
        5_000,
        1,
        0,
        null,
        List.of("vllm:request_queue_time_seconds"),
        0,
        tpot,
        ttft,
        ttft,
        null,
        3.0,
        0.0,
        0.12,
        2_048L,
        1_024L);
  }

  @Test
  void anEngineEventIsWrittenAsTheDesignShowsIt() {
    TokenEvent engine =
        TokenEvent.engine(1_765_000_000_750L, "r1", "model-a", null, "p1", scrape());
    String json = TokenEventCodec.encodeToString(engine);
    assertEquals(
        "{\"type\":\"engine\",\"v\":1,\"ts\":1765000000750,\"runId\":\"r1\",\"model\":\"model-a\","
            + "\"producerId\":\"p1\",\"engine\":{\"endpoint\":\"http://127.0.0.1:8000/metrics\","
            + "\"mapping\":\"vllm\",\"intervalMs\":5000,\"scrapes\":1,\"failedScrapes\":0,"
            + "\"missing\":[\"vllm:request_queue_time_seconds\"],\"resets\":0,"
            + "\"tpot\":{\"leUs\":[10000,25000,50000],\"counts\":[3,120,4,0]},"
            + "\"ttft\":{\"leUs\":[100000],\"counts\":[2,1]},"
            + "\"e2e\":{\"leUs\":[100000],\"counts\":[2,1]},"
            + "\"running\":3.0,\"waiting\":0.0,\"kvCacheUsage\":0.12,"
            + "\"prefixQueries\":2048,\"prefixHits\":1024}}",
        json);
    assertEquals(engine, TokenEventCodec.decode(json));
    TokenEvent end =
        TokenEvent.end(1_000L, "r", "q", "m", null, 5L, 2, null, null, null, null, "p")
            .withEngineTiming(new EngineTiming(null, 85_200L, 9_100L, null));
    assertEquals(
        "{\"type\":\"end\",\"v\":1,\"ts\":1000,\"runId\":\"r\",\"requestId\":\"q\",\"model\":\"m\","
            + "\"elapsedNs\":5,\"seq\":2,\"producerId\":\"p\","
            + "\"engineTiming\":{\"ttftUs\":85200,\"meanItlUs\":9100}}",
        TokenEventCodec.encodeToString(end));
  }

  @Test
  void healthAndFlagFieldsFollowTheDesignOrder() {
    TokenEvent token =
        TokenEvent.token(1_000L, "r", "q", "m", null, 5L, 1, 1, TokenKind.CONTENT, "p")
            .asWarmup()
            .asCoalesced()
            .withSource("producer");
    assertEquals(
        "{\"type\":\"token\",\"v\":1,\"ts\":1000,\"runId\":\"r\",\"requestId\":\"q\",\"model\":\"m\","
            + "\"elapsedNs\":5,\"seq\":1,\"tokens\":1,\"kind\":\"content\",\"producerId\":\"p\","
            + "\"coalesced\":true,\"warmup\":true,\"source\":\"producer\"}",
        TokenEventCodec.encodeToString(token));
    assertTrue(token.inWarmup());
    assertTrue(token.arrivedCoalesced());
    assertEquals(
        "{\"type\":\"heartbeat\",\"v\":1,\"ts\":2000,\"runId\":\"r\",\"producerId\":\"p\","
            + "\"watermark\":1800,\"clientPauseMaxUs\":3,\"loopLagMaxUs\":4,\"coalescedChunks\":5}",
        TokenEventCodec.encodeToString(
            TokenEvent.heartbeat(2_000L, "r", "p", 1_800L, false, 3L, 4L, 5L)));
    assertEquals(1234L, token.withTs(1234L).ts());
    assertEquals(token.withTs(1234L).withTs(1000L), token);
  }

  @Test
  void aDroppingProducersHeartbeatSaysHowManyEventsItDropped() {
    TokenEvent heartbeat =
        TokenEvent.heartbeat(1_700_000_002_000L, "r", "p", 1_700_000_001_800L, false, 3L, 4L, 5L)
            .withSource("proxy")
            .withDroppedEvents(12L);
    String json = TokenEventCodec.encodeToString(heartbeat);
    assertEquals(
        "{\"type\":\"heartbeat\",\"v\":1,\"ts\":1700000002000,\"runId\":\"r\",\"producerId\":\"p\","
            + "\"watermark\":1700000001800,\"clientPauseMaxUs\":3,\"loopLagMaxUs\":4,\"coalescedChunks\":5,"
            + "\"source\":\"proxy\",\"droppedEvents\":12}",
        json);
    assertEquals(heartbeat, TokenEventCodec.decode(json));
    assertEquals(12L, heartbeat.withTs(1_700_000_002_500L).droppedEvents());
  }

  @Test
  void everyEventTypeRoundTrips() {
    for (TokenEvent event : oneOfEachType()) {
      byte[] bytes = TokenEventCodec.encode(event);
      assertEquals(event, TokenEventCodec.decode(bytes), new String(bytes));
    }
  }

  @Test
  void encodingIsFlatWithFieldsInFixedOrderAndAbsentFieldsOmitted() {
    TokenEvent token = token(1_700_000_000_100L, 99_000_000L, 0, TokenKind.CONTENT);
    assertEquals(
        "{\"type\":\"token\",\"v\":1,\"ts\":1700000000100,\"runId\":\"run-1\",\"requestId\":\"req-1\","
            + "\"model\":\"model-a\",\"labels\":{\"concurrency\":\"10\",\"target\":\"gw-a\"},"
            + "\"elapsedNs\":99000000,\"seq\":0,\"tokens\":1,\"kind\":\"content\",\"producerId\":\"p-1\"}",
        TokenEventCodec.encodeToString(token));
    String finalHeartbeat =
        TokenEventCodec.encodeToString(
            TokenEvent.heartbeat(1_700_000_002_000L, "run-1", "p-1", 1_700_000_001_800L, true, 7L));
    assertEquals(
        "{\"type\":\"heartbeat\",\"v\":1,\"ts\":1700000002000,\"runId\":\"run-1\",\"producerId\":\"p-1\","
            + "\"watermark\":1700000001800,\"final\":true,\"clientPauseMaxUs\":7}",
        finalHeartbeat);
  }

  @Test
  void aStartCarriesItsPrefixHashesAsWholeNumbersLastAndExactly() {
    TokenEvent start =
        TokenEvent.start(1_700_000_000_000L, "run-1", "req-1", "model-a", null, null, "p-1")
            .withSource("proxy")
            .withPrefix(List.of(-9_223_372_036_854_775_808L, 9_007_199_254_740_993L, 0L), 4);
    String json = TokenEventCodec.encodeToString(start);
    assertEquals(
        "{\"type\":\"start\",\"v\":1,\"ts\":1700000000000,\"runId\":\"run-1\",\"requestId\":\"req-1\","
            + "\"model\":\"model-a\",\"elapsedNs\":0,\"producerId\":\"p-1\",\"source\":\"proxy\","
            + "\"prefixHashes\":[-9223372036854775808,9007199254740993,0],\"prefixBlocks\":4}",
        json);
    assertEquals(start, TokenEventCodec.decode(json));
  }

  @Test
  void unknownFieldsAreIgnored() {
    TokenEvent event =
        TokenEventCodec.decode(
            "{\"type\":\"token\",\"v\":1,\"ts\":1700000000005,\"requestId\":\"r\",\"model\":\"m\",\"elapsedNs\":7,"
                + "\"seq\":0,\"futureField\":{\"nested\":[1,2]},\"other\":\"x\"}");
    assertEquals(EventType.TOKEN, event.type());
    assertEquals(1, event.v());
    assertEquals(7L, event.elapsedNs());
    assertNull(event.tokens());
    assertEquals(1, event.tokensOrOne());
  }

  @Test
  void anotherVersionOrANegativeCountIsNotATokenEvent() {
    TokenEventFormatException v2 =
        assertThrows(
            TokenEventFormatException.class,
            () ->
                TokenEventCodec.decode(
                    "{\"type\":\"token\",\"v\":2,\"ts\":1700000000005,\"requestId\":\"r\",\"model\":\"m\","
                        + "\"elapsedNs\":7,\"seq\":0}"));
    assertTrue(
        v2.getMessage().startsWith("not a token event: version v=2 is not 1"), v2.getMessage());
    TokenEventFormatException noVersion =
        assertThrows(
            TokenEventFormatException.class,
            () ->
                TokenEventCodec.decode(
                    "{\"type\":\"heartbeat\",\"ts\":1700000000005,\"producerId\":\"p\",\"watermark\":1}"));
    assertTrue(noVersion.getMessage().startsWith("not a token event: version v=0 is not 1"));
    TokenEventFormatException negative =
        assertThrows(
            TokenEventFormatException.class,
            () ->
                TokenEventCodec.decode(
                    "{\"type\":\"token\",\"v\":1,\"ts\":1700000000005,\"requestId\":\"r\",\"model\":\"m\","
                        + "\"elapsedNs\":7,\"seq\":-1}"));
    assertTrue(negative.getMessage().startsWith("not a token event: negative seq -1 in "));
  }

  @Test
  void malformedRecordsGiveAClearExceptionNotANull() {
    TokenEventFormatException notJson =
        assertThrows(TokenEventFormatException.class, () -> TokenEventCodec.decode("{not json"));
    assertTrue(notJson.getMessage().startsWith("not a token event"), notJson.getMessage());
    assertTrue(notJson.getMessage().contains("{not json"), notJson.getMessage());

    TokenEventFormatException badType =
        assertThrows(
            TokenEventFormatException.class,
            () ->
                TokenEventCodec.decode(
                    "{\"type\":\"tok\",\"ts\":1700000000005,\"requestId\":\"r\"}"));
    assertTrue(badType.getMessage().contains("unknown event type 'tok'"), badType.getMessage());

    TokenEventFormatException missing =
        assertThrows(
            TokenEventFormatException.class,
            () ->
                TokenEventCodec.decode(
                    "{\"type\":\"token\",\"v\":1,\"ts\":1700000000005,\"requestId\":\"r\"}"));
    assertEquals(
        "not a token event: missing model in '{\"type\":\"token\",\"v\":1,\"ts\":1700000000005,\"requestId\":\"r\"}'",
        missing.getMessage());

    assertThrows(TokenEventFormatException.class, () -> TokenEventCodec.decode(new byte[0]));
    assertThrows(TokenEventFormatException.class, () -> TokenEventCodec.decode("[1,2]"));
    assertThrows(TokenEventFormatException.class, () -> TokenEventCodec.decode("null"));
  }
}
