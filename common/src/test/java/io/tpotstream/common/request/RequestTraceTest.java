package io.tpotstream.common.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.common.stats.LatencyHistogram;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestTraceTest {
  static final long T0 = 1_700_000_000_000L;
  static final Map<String, String> LABELS = Map.of("stage", "concurrency-4");

  private static TokenEvent token(String id, long elapsedNs, int seq, int tokens) {
    return TokenEvent.token(
        T0 + elapsedNs / 1_000_000,
        "run",
        id,
        "m",
        LABELS,
        elapsedNs,
        seq,
        tokens,
        TokenKind.CONTENT,
        "p");
  }

  /** ttft 100 ms; gaps 1, 1, 1.5 ms and a 2-token chunk 1.6 ms later (two samples of 0.8 ms). */
  private static List<TokenEvent> completed(String id) {
    List<TokenEvent> events = new ArrayList<>();
    events.add(TokenEvent.start(T0, "run", id, "m", LABELS, 2_000_000L, "p"));
    events.add(token(id, 100_000_000L, 0, 1));
    events.add(token(id, 101_000_000L, 1, 1));
    events.add(token(id, 101_000_000L, 1, 1)); // duplicate: ignored
    events.add(token(id, 102_000_000L, 2, 1));
    events.add(token(id, 103_500_000L, 3, 1));
    events.add(token(id, 105_100_000L, 4, 2));
    events.add(
        TokenEvent.end(T0 + 110, "run", id, "m", LABELS, 110_000_000L, 5, 12, 6, "stop", null, "p")
            .withCachedTokens(8));
    return events;
  }

  @Test
  void aCompletedRequestGivesItsOwnGapPercentilesAndRequestTpot() {
    List<RequestRecord> records = new ArrayList<>();
    RequestRecords.fromEvents(completed("r1"), GoodputLimits.NONE, records::add);
    assertEquals(1, records.size());
    RequestRecord r = records.get(0);
    assertEquals("r1", r.requestId());
    assertEquals("m", r.model());
    assertEquals(Map.of("stage", "concurrency-4"), r.labels());
    assertEquals("2023-11-14T22:13:20Z", r.start());
    assertEquals(RequestRecord.COMPLETED, r.outcome());
    assertEquals(new BigDecimal("100.000"), r.ttftMs());
    assertEquals(new BigDecimal("110.000"), r.e2eMs());
    assertEquals(6, r.outputTokens());
    assertEquals(12, r.promptTokens());
    assertEquals(8, r.cachedTokens());
    assertTrue(
        RequestRecords.encode(r)
            .contains("\"outputTokens\":6,\"promptTokens\":12,\"cachedTokens\":8,"),
        RequestRecords.encode(r));
    // (105.1 - 100) ms over (6 - 1) tokens
    assertEquals(new BigDecimal("1.020"), r.requestTpotMs());
    // samples: 1.0, 1.0, 1.5, 0.8, 0.8
    assertEquals(5, r.gaps());
    assertEquals(new BigDecimal("1.000"), r.gapP50Ms());
    assertEquals(new BigDecimal("1.500"), r.gapP99Ms());
    assertEquals(new BigDecimal("1.500"), r.gapMaxMs());
    assertEquals(new BigDecimal("2.000"), r.scheduleLagMs());
    assertNull(r.good());
    assertNull(r.errorClass());
  }

  @Test
  void goodputLimitsMarkEachRequest() {
    List<RequestRecord> records = new ArrayList<>();
    RequestRecords.fromEvents(
        completed("r1"), GoodputLimits.parse("ttft=100ms,request_tpot=1.02ms"), records::add);
    assertEquals(true, records.get(0).good());
    records.clear();
    RequestRecords.fromEvents(completed("r1"), GoodputLimits.parse("ttft=99ms"), records::add);
    assertEquals(false, records.get(0).good());
  }

  @Test
  void failedAndUnfinishedRequestsKeepWhatWasObserved() {
    List<TokenEvent> events = new ArrayList<>();
    events.add(TokenEvent.start(T0, "run", "f", "m", LABELS, null, "p"));
    events.add(token("f", 50_000_000L, 0, 1));
    events.add(token("f", 51_000_000L, 1, 1));
    events.add(
        TokenEvent.error(
            T0 + 60,
            "run",
            "f",
            "m",
            LABELS,
            60_000_000L,
            2,
            "timeout_idle",
            null,
            "idle",
            null,
            "p"));
    events.add(TokenEvent.start(T0 + 1, "run", "open", "m", LABELS, null, "p"));
    events.add(TokenEvent.start(T0 + 2, "run", "w", "m", LABELS, null, "p").asWarmup());
    List<RequestRecord> records = new ArrayList<>();
    RequestRecords.fromEvents(events, GoodputLimits.parse("e2e=1s"), records::add);
    assertEquals(2, records.size(), "the warm-up request is left out");
    RequestRecord failed = records.get(0);
    assertEquals(RequestRecord.FAILED, failed.outcome());
    assertEquals("timeout_idle", failed.errorClass());
    assertEquals(new BigDecimal("60.000"), failed.e2eMs());
    assertEquals(2, failed.outputTokens());
    assertNull(failed.promptTokens());
    assertNull(failed.cachedTokens());
    assertEquals(1, failed.gaps());
    assertNull(failed.requestTpotMs());
    assertEquals(false, failed.good());
    RequestRecord open = records.get(1);
    assertEquals("open", open.requestId());
    assertEquals(RequestRecord.ABANDONED, open.outcome());
    assertNull(open.e2eMs());
    assertNull(open.ttftMs());
  }

  @Test
  void feedingMeasurementsGivesTheSameRecordAsFeedingEvents() {
    List<RequestRecord> fromEvents = new ArrayList<>();
    RequestRecords.fromEvents(completed("r1"), GoodputLimits.NONE, fromEvents::add);
    RequestTrace direct = new RequestTrace("r1");
    direct.start(T0, "run", "m", LABELS, 2_000_000L);
    long[] at = {100_000_000L, 101_000_000L, 102_000_000L, 103_500_000L, 105_100_000L};
    int[] k = {1, 1, 1, 1, 2};
    for (int i = 0; i < at.length; i++) {
      direct.token(i, at[i], k[i]);
    }
    direct.promptUsage(12, 8);
    RequestRecord r = direct.end(110_000_000L, 6, GoodputLimits.NONE, new LatencyHistogram());
    assertEquals(fromEvents.get(0), r);
    assertEquals(
        RequestRecords.encode(r),
        RequestRecords.encode(RequestRecords.decode(RequestRecords.encode(r))));
  }

  /**
   * An end event with what the engine said of the request: the engine's TTFT, mean ITL and queue
   * time, and the client's minus the engine's; a record without it has none of them, and engine
   * events belong to no request.
   */
  @Test
  void theEnginesTimingGivesTheTimeSpentOutsideTheEngine() {
    List<TokenEvent> events = completed("r1");
    TokenEvent end = events.remove(events.size() - 1);
    events.add(end.withEngineTiming(new EngineTiming(12_300L, 85_200L, 900L, 5_000L)));
    events.add(
        TokenEvent.engine(
            T0 + 120, "run", "m", LABELS, "p", EngineSample.failed("u", "vllm", 1, "refused")));
    List<RequestRecord> records = new ArrayList<>();
    RequestRecords.fromEvents(events, GoodputLimits.NONE, records::add);
    assertEquals(1, records.size());
    RequestRecord r = records.get(0);
    assertEquals(new BigDecimal("85.200"), r.engineTtftMs());
    assertEquals(new BigDecimal("0.900"), r.engineMeanItlMs());
    assertEquals(new BigDecimal("12.300"), r.engineQueueMs());
    assertEquals(new BigDecimal("14.800"), r.ttftOutsideMs()); // 100 ms - 85.2 ms
    // the mean of its samples 1.0, 1.0, 1.5, 0.8, 0.8 ms: 1.02 ms, minus 0.9 ms
    assertEquals(new BigDecimal("0.120"), r.meanItlOutsideMs());
    assertTrue(
        RequestRecords.encode(r)
            .endsWith(
                ",\"engineTtftMs\":85.200,\"engineMeanItlMs\":0.900,\"engineQueueMs\":12.300,"
                    + "\"ttftOutsideMs\":14.800,\"meanItlOutsideMs\":0.120}"),
        RequestRecords.encode(r));

    RequestTrace direct = new RequestTrace("r1");
    direct.start(T0, "run", "m", LABELS, 2_000_000L);
    long[] at = {100_000_000L, 101_000_000L, 102_000_000L, 103_500_000L, 105_100_000L};
    int[] k = {1, 1, 1, 1, 2};
    for (int i = 0; i < at.length; i++) {
      direct.token(i, at[i], k[i]);
    }
    direct.promptUsage(12, 8);
    direct.engineTiming(new EngineTiming(12_300L, 85_200L, 900L, 5_000L));
    assertEquals(r, direct.end(110_000_000L, 6, GoodputLimits.NONE, new LatencyHistogram()));

    // the engine said only its TTFT; a request that never ended has nothing of the engine
    RequestTrace partial = new RequestTrace("r2");
    partial.start(T0, "run", "m", LABELS, null);
    partial.token(0, 40_000_000L, 1);
    partial.engineTiming(new EngineTiming(null, 52_500L, null, null));
    RequestRecord one = partial.end(41_000_000L, 1, GoodputLimits.NONE, new LatencyHistogram());
    assertEquals(new BigDecimal("-12.500"), one.ttftOutsideMs(), "a client clock that runs short");
    assertNull(one.engineMeanItlMs());
    assertNull(one.meanItlOutsideMs(), "no gap, no mean");
    assertNull(one.engineQueueMs());
    RequestRecord none = RequestRecords.decode(RequestRecords.encode(records.get(0)));
    assertEquals(r, none);
    List<RequestRecord> plain = new ArrayList<>();
    RequestRecords.fromEvents(completed("r3"), GoodputLimits.NONE, plain::add);
    assertNull(plain.get(0).engineTtftMs());
    assertNull(plain.get(0).ttftOutsideMs());
    assertTrue(!RequestRecords.encode(plain.get(0)).contains("engine"));
  }

  @Test
  void rulesRoundHalfUpAndNeedTwoChunks() {
    assertEquals(2, RequestRules.micros(1_500));
    assertEquals(1, RequestRules.micros(1_499));
    assertEquals(500, RequestRules.gapMicros(1_000_000, 2));
    assertEquals(true, RequestRules.tooShort(1));
    assertEquals(false, RequestRules.tooShort(2));
    assertEquals(-1, RequestRules.requestTpotMicros(0, 5_000_000, 1, 1));
    assertEquals(1_250, RequestRules.requestTpotMicros(0, 5_000_000, 5, 1));
    assertEquals(7, RequestRules.outputTokens(7, 3));
    assertEquals(3, RequestRules.outputTokens(null, 3));
  }
}
