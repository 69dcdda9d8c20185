package io.tpotstream.aggregator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.fixtures.Scrapes;
import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.engine.EngineHistogram;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

class AggregatorTopologyTest {
  /** A window start: 10 s windows align to the epoch. */
  static final long T0 = 1_700_000_000_000L;

  static final StageSettings TEN_SECONDS = StageSettings.defaults();

  private static long ms(long millis) {
    return millis * 1_000_000L;
  }

  @Test
  void knownGapsGiveExactPercentiles() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0 - 200), r.start(T0 + 1));
      long elapsedNs = ms(100);
      h.pipe(r.token(T0 + 100, elapsedNs));
      LatencyHistogram expected = new LatencyHistogram();
      for (int i = 1; i <= 100; i++) {
        long gapMicros = i * 20L; // 20 µs .. 2 ms: exact in a 3-digit HdrHistogram
        elapsedNs += gapMicros * 1000;
        h.pipe(r.token(T0 + 100 + i, elapsedNs));
        expected.recordMicros(gapMicros);
      }
      h.pipe(r.end(T0 + 300, elapsedNs + ms(1)));
      assertTrue(h.newSummaries().isEmpty(), "no window closes before the watermark passes it");

      h.pipe(Req.heartbeat(T0 + 10_500, "p1", T0 + 10_000));

      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size());
      WindowSummary s = out.get(0);
      assertEquals("model-a", s.series());
      assertEquals(T0, s.windowStartMs());
      assertEquals(T0 + 10_000, s.windowEndMs());
      assertEquals(100, s.tpot().count());
      assertEquals(new BigDecimal("0.020"), s.tpot().minMs());
      assertEquals(new BigDecimal("1.010"), s.tpot().meanMs());
      assertEquals(new BigDecimal("1.000"), s.tpot().p50Ms());
      assertEquals(new BigDecimal("1.800"), s.tpot().p90Ms());
      assertEquals(new BigDecimal("1.980"), s.tpot().p99Ms());
      assertEquals(new BigDecimal("2.000"), s.tpot().p999Ms());
      assertEquals(new BigDecimal("2.000"), s.tpot().maxMs());
      assertEquals(expected, HistogramCodec.decode(s.histograms().tpot()));
      assertEquals(1, s.ttft().count());
      assertEquals(new BigDecimal("100.031"), s.ttft().p50Ms()); // 100 ms' bucket, 64 µs wide
      assertEquals(1, s.requests().started());
      assertEquals(1, s.requests().completed());
      assertEquals(0, s.requests().tooShort());
      assertEquals(101, s.outputTokens());
      // request TPOT: (last - first) / (101 tokens - 1) = 101 ms / 100
      assertEquals(new BigDecimal("1.010"), s.requestTpot().p50Ms());
    }
  }

  @Test
  void aStallOf150msIsTheMaxOfItsSeries() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 1), r.token(T0 + 200, ms(200)));
      LatencyHistogram expected = new LatencyHistogram();
      long elapsedNs = ms(200);
      for (int i = 1; i <= 50; i++) {
        long gapNs = i == 25 ? ms(150) : 3_210_000L;
        elapsedNs += gapNs;
        expected.recordNanos(gapNs);
        h.pipe(r.token(T0 + 200 + i * 4L, elapsedNs));
      }
      h.pipe(r.end(T0 + 500, elapsedNs), Req.finalHeartbeat(T0 + 600, "p1", T0 + 550));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window

      WindowSummary s = h.newSummaries().get(0);
      assertEquals(50, s.tpot().count());
      assertEquals(LatencyHistogram.ms(expected.maxMicros()), s.tpot().maxMs());
      assertEquals(new BigDecimal("150.015"), s.tpot().maxMs()); // 150 ms' bucket, 32 µs wide
      assertEquals(new BigDecimal("3.211"), s.tpot().p50Ms());
    }
  }

  @Test
  void eachKindOfSampleLandsInItsWindow() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0 + 9_000, "p1", T0 + 8_800));
      h.pipe(r.start(T0 + 9_500, ms(2))); // start + schedule lag: window 0
      h.pipe(r.token(T0 + 10_200, ms(700))); // first token, TTFT: window 1
      h.pipe(r.token(T0 + 19_900, ms(10_400))); // TPOT 9.7 s: window 1
      h.pipe(r.token(T0 + 20_100, ms(10_600))); // TPOT 200 ms: window 2
      h.pipe(r.end(T0 + 30_500, ms(21_000))); // E2E, request TPOT, completed: window 3
      h.pipe(Req.finalHeartbeat(T0 + 30_600, "p1", T0 + 30_550));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window

      List<WindowSummary> out = h.newSummaries();
      assertEquals(4, out.size());
      WindowSummary w0 = out.get(0);
      WindowSummary w1 = out.get(1);
      WindowSummary w2 = out.get(2);
      WindowSummary w3 = out.get(3);
      assertEquals(
          List.of(T0, T0 + 10_000, T0 + 20_000, T0 + 30_000),
          out.stream().map(WindowSummary::windowStartMs).toList());

      assertEquals(1, w0.requests().started());
      assertEquals(new BigDecimal("2.000"), w0.scheduleLag().p50Ms());
      assertEquals(0, w0.tpot().count());
      assertEquals(0, w0.ttft().count());

      assertEquals(1, w1.ttft().count());
      assertEquals(new BigDecimal("700.415"), w1.ttft().p50Ms()); // 512 µs buckets
      assertEquals(1, w1.ttftFromIntended().count());
      assertEquals(1, w1.tpot().count());
      assertEquals(0, w1.requests().started());
      assertEquals(2, w1.outputTokens());

      assertEquals(1, w2.tpot().count());
      assertEquals(new BigDecimal("200.063"), w2.tpot().p50Ms());
      assertEquals(0, w2.requests().completed());

      assertEquals(1, w3.requests().completed());
      assertEquals(1, w3.e2e().count());
      assertEquals(1, w3.requestTpot().count());
      assertEquals(0, w3.tpot().count());
      assertNull(w3.scheduleLag());
    }
  }

  @Test
  void heartbeatsCloseWindowsWithoutTokens() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 10), r.token(T0 + 20, ms(20)));
      h.pipe(r.token(T0 + 30, ms(30)));
      h.pipe(Req.heartbeat(T0 + 5_000, "p1", T0 + 4_800));
      h.pipe(Req.heartbeat(T0 + 9_999, "p1", T0 + 9_999));
      assertTrue(h.newSummaries().isEmpty());

      h.pipe(Req.heartbeat(T0 + 10_200, "p1", T0 + 10_000));

      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size());
      assertEquals(1, out.get(0).tpot().count());
      assertEquals(1, out.get(0).requests().started());
      assertEquals(0, out.get(0).requests().completed());
    }
  }

  @Test
  void aFinalHeartbeatLeavesTheLastWindowToTheClock() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS.withGrace(Duration.ofSeconds(5)))) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0 + 12_000, "p1", T0 + 11_800));
      h.pipe(r.start(T0 + 12_000), r.token(T0 + 12_100, ms(100)), r.token(T0 + 19_990, ms(7990)));
      h.pipe(r.end(T0 + 19_995, ms(7995)));
      h.pipe(Req.heartbeat(T0 + 20_000, "p1", T0 + 19_800));
      assertTrue(h.newSummaries().isEmpty());

      // p1 promises nothing more, but another producer may still join until the window's end
      h.pipe(Req.finalHeartbeat(T0 + 20_005, "p1", T0 + 19_805));
      assertTrue(h.newSummaries().isEmpty());
      h.advanceWallClock(Duration.ofSeconds(4)); // the clock at 24.005 s: within the grace
      assertTrue(h.newSummaries().isEmpty());

      h.advanceWallClock(Duration.ofSeconds(1));
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size());
      assertEquals(T0 + 10_000, out.get(0).windowStartMs());
      assertEquals(1, out.get(0).tpot().count());
      assertEquals(1, out.get(0).requests().completed());
    }
  }

  @Test
  void theWindowHoldingTheLastTokenIsEmittedWhenTheFinalWatermarkIsBehindIt() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0 + 9_000, "p1", T0 + 8_800), r.start(T0 + 9_900));
      h.pipe(
          r.token(T0 + 9_950, ms(50)), r.token(T0 + 10_050, ms(150)), r.end(T0 + 10_060, ms(160)));
      h.pipe(Req.finalHeartbeat(T0 + 10_070, "p1", T0 + 9_870));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window

      List<WindowSummary> out = h.newSummaries();
      assertEquals(
          List.of(T0, T0 + 10_000), out.stream().map(WindowSummary::windowStartMs).toList());
      assertEquals(1, out.get(1).tpot().count());
    }
  }

  @Test
  void aStaleProducersSamplesAreCountedLate() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req slow = new Req("slow-1", "model-a", Map.of(), "p-slow");
      Req fast = new Req("fast-1", "model-a", Map.of(), "p-fast");
      h.pipe(Req.heartbeat(T0, "p-slow", T0), Req.heartbeat(T0, "p-fast", T0));
      h.pipe(slow.start(T0 + 100), slow.token(T0 + 200, ms(100)));
      h.pipe(fast.start(T0 + 100), fast.token(T0 + 200, ms(100)), fast.token(T0 + 300, ms(200)));
      h.pipe(fast.end(T0 + 400, ms(300)));
      // p-slow goes quiet; p-fast's watermark runs ahead
      for (long s = 1; s <= 70; s++) {
        h.pipe(Req.heartbeat(T0 + s * 1000, "p-fast", T0 + s * 1000 - 200));
      }
      List<WindowSummary> closed = h.newSummaries();
      assertEquals(1, closed.size(), "windows close once p-slow is 60 s behind p-fast");
      assertEquals(T0, closed.get(0).windowStartMs());
      assertEquals(1, closed.get(0).tpot().count());
      assertEquals(0, closed.get(0).lateSamples());

      // p-slow's delayed chunks: their windows already closed on this partition
      h.pipe(slow.token(T0 + 300, ms(200)), slow.token(T0 + 400, ms(300)));
      h.pipe(Req.finalHeartbeat(T0 + 70_500, "p-fast", T0 + 70_500));

      List<WindowSummary> open = h.newSummaries();
      assertEquals(1, open.size(), "a summary with zero samples carries the late count");
      WindowSummary late = open.get(0);
      assertEquals(T0 + 60_000, late.windowStartMs(), "the window open when they arrived");
      assertEquals(2, late.lateSamples());
      assertEquals(0, late.tpot().count());
    }
  }

  @Test
  void abandonedRequestsExpireAndLeaveNoState() {
    StageSettings settings = TEN_SECONDS.withRequestTimeout(Duration.ofSeconds(30));
    try (TopologyHarness h = new TopologyHarness(settings)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 100), r.token(T0 + 200, ms(100)));
      h.pipe(r.token(T0 + 2_500, ms(2_400)));
      assertEquals(1, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'r'));
      for (long s = 1; s <= 45; s++) {
        h.pipe(Req.heartbeat(T0 + s * 1000, "p1", T0 + s * 1000 - 200));
      }
      List<WindowSummary> out = h.newSummaries();
      // expiry at 2.5 s + 30 s = 32.5 s: window [30 s, 40 s)
      assertEquals(
          List.of(T0, T0 + 30_000), out.stream().map(WindowSummary::windowStartMs).toList());
      assertEquals(0, out.get(0).requests().abandoned());
      assertEquals(1, out.get(1).requests().abandoned());
      assertEquals(new BigDecimal("1.0000"), out.get(1).requests().errorRate());
      // kept one more timeout, to recognise it; then gone
      assertEquals(1, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'r'));
      for (long s = 46; s <= 75; s++) {
        h.pipe(Req.heartbeat(T0 + s * 1000, "p1", T0 + s * 1000 - 200));
      }
      assertEquals(0, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'r'));
    }
  }

  @Test
  void aRequestThatResumesAfterItWasAbandonedIsCountedOnce() {
    StageSettings settings = TEN_SECONDS.withRequestTimeout(Duration.ofSeconds(30));
    try (TopologyHarness h = new TopologyHarness(settings)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 100), r.token(T0 + 200, ms(100)));
      h.pipe(r.token(T0 + 300, ms(200)));
      // silent for 40 s, then it goes on and ends: abandoned at 30.3 s, and nothing more
      h.pipe(Req.heartbeat(T0 + 40_000, "p1", T0 + 40_000 - 200));
      h.pipe(r.token(T0 + 40_300, ms(40_200)), r.token(T0 + 40_400, ms(40_300)));
      h.pipe(r.end(T0 + 40_500, ms(40_400)));
      h.pipe(Req.finalHeartbeat(T0 + 51_000, "p1", T0 + 51_000));
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.stream().mapToLong(w -> w.requests().abandoned()).sum());
      assertEquals(0, out.stream().mapToLong(w -> w.requests().completed()).sum());
      assertEquals(1, out.stream().mapToLong(w -> w.tpot().count()).sum(), "the gap before");
      assertEquals(0, out.stream().mapToLong(w -> w.e2e().count()).sum());
    }
  }

  @Test
  void twoProducersWhoseClocksDifferBy8sLoseNoSample() {
    List<TokenEvent> events = new ArrayList<>();
    long skewMs = 8_000;
    int expectedGaps = 0;
    for (int p = 0; p < 2; p++) {
      events.add(Req.heartbeat(T0 + p * skewMs, "p" + p, T0 + p * skewMs - 200));
    }
    // real time t runs 0..40 s; producer p1's clock reads t + 8 s
    List<Req> open = new ArrayList<>();
    for (long t = 0; t < 40_000; t += 100) {
      for (int p = 0; p < 2; p++) {
        long ts = T0 + t + p * skewMs;
        if (t % 1000 == 0) {
          events.add(Req.heartbeat(ts, "p" + p, ts - 200));
        }
        if (t % 2000 == 0) {
          Req r = new Req("p" + p + "-r" + t, "model-a", Map.of(), "p" + p);
          events.add(r.start(ts));
          for (int i = 0; i < 12; i++) {
            events.add(r.token(ts + 10 + i * 100L, ms(10 + i * 100L)));
          }
          events.add(r.end(ts + 1_200, ms(1_200)));
          expectedGaps += 11;
        }
      }
    }
    // a producer's events in its ts order, the two producers interleaved by real time
    events.sort((a, b) -> Long.compare(realTime(a, skewMs), realTime(b, skewMs)));
    events.add(Req.finalHeartbeat(T0 + 41_000, "p0", T0 + 41_000));
    events.add(Req.finalHeartbeat(T0 + 49_000, "p1", T0 + 49_000));
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      h.pipe(events);
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window
      List<WindowSummary> out = h.newSummaries();
      assertEquals(expectedGaps, out.stream().mapToLong(s -> s.tpot().count()).sum());
      assertEquals(0, out.stream().mapToLong(WindowSummary::lateSamples).sum());
      assertEquals(40, out.stream().mapToLong(s -> s.requests().completed()).sum());
    }
  }

  private static long realTime(TokenEvent e, long skewMs) {
    return "p1".equals(e.producerId()) ? e.ts() - skewMs : e.ts();
  }

  @Test
  void aVanishedProducerHoldsWindowsOpenUntilAnotherMakesItStale() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req killed = new Req("k-1", "model-a", Map.of(), "p-killed");
      h.pipe(Req.heartbeat(T0, "p-killed", T0), Req.heartbeat(T0, "p-alive", T0));
      h.pipe(killed.start(T0 + 100), killed.token(T0 + 200, ms(100)));
      h.pipe(killed.token(T0 + 5_000, ms(4_900)));
      h.pipe(Req.heartbeat(T0 + 5_000, "p-killed", T0 + 4_800)); // its last word: SIGKILL
      for (long s = 1; s <= 70; s++) {
        h.pipe(Req.heartbeat(T0 + s * 1000, "p-alive", T0 + s * 1000 - 200));
        if (s * 1000 - 200 <= 4_800 + 60_000) {
          assertTrue(h.newSummaries().isEmpty(), "window 0 held open at alive's watermark " + s);
        }
      }
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size());
      assertEquals(T0, out.get(0).windowStartMs());
      assertEquals(1, out.get(0).tpot().count(), "the killed producer's sample is kept");
    }
  }

  @Test
  void aPoisonRecordGoesToTheDeadLettersAndTheNextRecordsAreProcessed() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 1), r.token(T0 + 2, ms(2)));
      byte[] poison = "{not json".getBytes(StandardCharsets.UTF_8);
      h.pipeRaw("bad-key", poison, T0 + 3);
      h.pipe(
          r.token(T0 + 4, ms(4)), r.end(T0 + 5, ms(5)), Req.finalHeartbeat(T0 + 6, "p1", T0 + 6));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window

      List<TestRecord<byte[], byte[]>> dead = h.deadLetters();
      assertEquals(1, dead.size());
      TestRecord<byte[], byte[]> d = dead.get(0);
      assertEquals("bad-key", new String(d.key(), StandardCharsets.UTF_8));
      assertEquals("{not json", new String(d.value(), StandardCharsets.UTF_8));
      assertEquals(h.config.inputTopic(), header(d, DeadLetterHeaders.SOURCE_TOPIC));
      assertEquals("0", header(d, DeadLetterHeaders.SOURCE_PARTITION));
      assertEquals("3", header(d, DeadLetterHeaders.SOURCE_OFFSET));
      assertTrue(header(d, DeadLetterHeaders.REASON).startsWith("not a token event"));

      WindowSummary s = h.newSummaries().get(0);
      assertEquals(1, s.tpot().count());
      assertEquals(1, s.requests().completed());
    }
  }

  @Test
  void aModelNamedLikeASeriesWithLabelsStaysASeriesOfItsOwn() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS.withGroupBy(List.of("a")))) {
      Req braced = new Req("r1", "m{a=b}", Map.of(), "p1");
      Req labelled = new Req("r2", "m", Map.of("a", "b"), "p1");
      h.pipe(Req.heartbeat(T0, "p1", T0), braced.start(T0 + 1), labelled.start(T0 + 1));
      h.pipe(braced.token(T0 + 2, ms(2)), braced.token(T0 + 3, ms(3)), braced.end(T0 + 4, ms(4)));
      h.pipe(
          labelled.token(T0 + 2, ms(2)),
          labelled.token(T0 + 3, ms(3)),
          labelled.token(T0 + 4, ms(4)),
          labelled.end(T0 + 5, ms(5)),
          Req.finalHeartbeat(T0 + 6, "p1", T0 + 6));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window

      List<WindowSummary> out = h.newSummaries();
      assertEquals(2, out.size());
      WindowSummary model = out.get(0);
      WindowSummary series = out.get(1);
      assertEquals("m\\{a=b}", model.series());
      assertEquals("m{a=b}", model.model());
      assertEquals(Map.of(), model.labels());
      assertEquals(1, model.tpot().count());
      assertEquals("m{a=b}", series.series());
      assertEquals("m", series.model());
      assertEquals(Map.of("a", "b"), series.labels());
      assertEquals(2, series.tpot().count());
    }
  }

  @Test
  void aPoisonRecordNearTheSizeLimitIsDeadLetteredTruncatedWithItsFirstHeaders() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      byte[] poison = new byte[900_000];
      java.util.Arrays.fill(poison, (byte) 'x');
      RecordHeaders headers = new RecordHeaders();
      headers.add("trace", "t-1".getBytes(StandardCharsets.UTF_8));
      headers.add("big", new byte[90_000]);
      headers.add("after", "a".getBytes(StandardCharsets.UTF_8));
      h.pipeRaw("k".repeat(5_000), poison, headers, T0 + 3);

      TestRecord<byte[], byte[]> d = h.deadLetters().get(0);
      assertEquals(64 * 1024, d.value().length);
      assertEquals("true", header(d, DeadLetterHeaders.VALUE_TRUNCATED));
      assertEquals("900000", header(d, DeadLetterHeaders.VALUE_SIZE));
      assertEquals("k".repeat(4 * 1024), new String(d.key(), StandardCharsets.UTF_8));
      assertEquals("true", header(d, DeadLetterHeaders.KEY_TRUNCATED));
      assertEquals("5000", header(d, DeadLetterHeaders.KEY_SIZE));
      assertEquals("t-1", header(d, "trace"));
      assertNull(d.headers().lastHeader("big"));
      assertEquals("a", header(d, "after"), "a later header that fits is kept");
      assertEquals("1", header(d, DeadLetterHeaders.HEADERS_DROPPED));
      assertEquals("0", header(d, DeadLetterHeaders.SOURCE_OFFSET));
      assertTrue(header(d, DeadLetterHeaders.REASON).startsWith("not a token event"));
    }
  }

  @Test
  void aSmallPoisonRecordIsDeadLetteredWholeWithoutTruncationHeaders() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      h.pipeRaw("bad-key", "{not json".getBytes(StandardCharsets.UTF_8), T0);
      TestRecord<byte[], byte[]> d = h.deadLetters().get(0);
      assertEquals("{not json", new String(d.value(), StandardCharsets.UTF_8));
      for (String name :
          List.of(
              DeadLetterHeaders.VALUE_TRUNCATED,
              DeadLetterHeaders.VALUE_SIZE,
              DeadLetterHeaders.KEY_TRUNCATED,
              DeadLetterHeaders.KEY_SIZE,
              DeadLetterHeaders.HEADERS_DROPPED)) {
        assertNull(d.headers().lastHeader(name), name);
      }
    }
  }

  @Test
  void shortRequestsLeaveNoStateInAnyStore() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      int requests = 5_000; // the driver commits per record: Stage1ProcessorTest runs a million
      h.pipe(Req.heartbeat(T0, "p1", T0));
      List<TokenEvent> batch = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        long ts = T0 + i / 100; // 100 requests per ms: 10 s of requests
        Req r = new Req("r" + i, "model-a");
        batch.add(r.start(ts));
        batch.add(r.token(ts, 1_000));
        batch.add(r.end(ts, 2_000));
        if (batch.size() >= 30_000) {
          h.pipe(batch);
          batch.clear();
        }
      }
      h.pipe(batch);
      h.pipe(Req.finalHeartbeat(T0 + 10_001, "p1", T0 + 10_001));

      for (char tag : new char[] {'r', 'w', 'h'}) {
        assertEquals(0, h.storeEntries(AggregatorTopology.STAGE1_STORE, tag), "stage 1 " + tag);
        assertEquals(0, h.storeEntries(AggregatorTopology.STAGE2_STORE, tag), "stage 2 " + tag);
      }
      List<WindowSummary> out = h.newSummaries();
      assertEquals(requests, out.stream().mapToLong(s -> s.requests().tooShort()).sum());
      assertEquals(requests, out.stream().mapToLong(s -> s.requests().started()).sum());
    }
  }

  @Test
  void theOfflineStatsGiveTheSameBytesAsTheTopology() {
    List<TokenEvent> events = new ArrayList<>();
    events.add(Req.heartbeat(T0, "p1", T0, 1_234));
    for (int i = 0; i < 30; i++) {
      Req r = new Req("r" + i, "model-" + (i % 3), Map.of("concurrency", "" + (i % 2)), "p1");
      long ts = T0 + i * 900L;
      events.add(r.start(ts, 1_000_000L * i));
      for (int k = 0; k < 20; k++) {
        TokenEvent token =
            r.token(
                ts + 50 + k * 40L,
                ms(50) + k * 40_000_000L + (k * 7919L % 3000) * 1000,
                k % 4 == 0 ? 2 : null);
        events.add(k % 5 == 3 ? token.asCoalesced() : token);
      }
      if (i % 6 == 1) {
        Req warm = new Req("warm" + i, "model-" + (i % 3), Map.of("concurrency", "1"), "p1");
        events.add(warm.start(ts + 10).asWarmup());
        events.add(warm.token(ts + 20, ms(10)).asWarmup());
        events.add(warm.token(ts + 30, ms(20)).asWarmup());
        events.add(warm.end(ts + 40, ms(30)).asWarmup());
      }
      events.add(
          i % 7 == 0
              ? r.error(ts + 1_000, ms(1_000), "timeout_idle")
              : i % 3 == 0 ? r.end(ts + 1_000, ms(1_000)) : r.end(ts + 1_000, ms(1_000), 90, i));
      events.add(
          TokenEvent.heartbeat(
              ts + 1_000, "run", "p1", ts + 800, false, 500L + i, 900L + 9 * i, 3L));
      if (i % 4 == 0) {
        events.add(
            Scrapes.scrape(
                ts + 1_000,
                "model-" + (i % 3),
                Map.of("concurrency", "" + (i % 2)),
                "p1",
                Scrapes.histogram(BOUNDS, 1L, (long) i, 2L, 0L, 1L),
                i % 8 == 0 ? Scrapes.histogram(List.of(50_000L), 1L, 0L) : null,
                (double) i,
                i / 100.0,
                2_048L,
                (long) i * 10));
      }
    }
    events.add(Req.finalHeartbeat(T0 + 40_000, "p1", T0 + 40_000));
    StageSettings settings = TEN_SECONDS.withGroupBy(List.of("concurrency"));
    List<String> offline =
        OfflineStats.compute(
                events,
                settings,
                p -> {
                  throw new AssertionError(p);
                })
            .stream()
            .map(WindowSummaryCodec::encodeToString)
            .toList();
    try (TopologyHarness h = new TopologyHarness(settings)) {
      h.pipe(events);
      h.newSummaries();
      assertEquals(offline, h.json);
      assertEquals(3 * 6, offline.size(), "3 windows x 3 models x 2 concurrencies");
      assertTrue(h.summaries.stream().mapToLong(WindowSummary::coalescedGaps).sum() > 0);
      assertEquals(5, h.summaries.stream().mapToLong(WindowSummary::warmupRequests).sum());
      assertTrue(h.summaries.stream().anyMatch(s -> s.promptCache() != null));
      assertEquals(8, h.summaries.stream().filter(s -> s.engine() != null).count());
    }
  }

  /** 10, 25, 100 and 150 ms. */
  private static final List<Long> BOUNDS = List.of(10_000L, 25_000L, 100_000L, 150_000L);

  private static EngineHistogram inBounds(Long... counts) {
    return Scrapes.histogram(BOUNDS, counts);
  }

  /**
   * A window with a request and its engine's scrapes: the summary's engine section holds the
   * engine's percentiles as bucket intervals over both scrapes, its gauges and prefix-cache hit
   * rate, and the client's percentiles minus the engine's; a model whose engine was scraped but
   * that no request used gets a row with its engine section and no client sample; a scraping
   * producer that sends no heartbeat holds no window.
   */
  @Test
  void aWindowsEngineSectionSitsBesideItsClientPercentiles() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      h.pipe(Req.heartbeat(T0, "p1", T0));
      Req r = new Req("r1", "model-a");
      h.pipe(r.start(T0 + 1), r.token(T0 + 130, ms(120))); // TTFT 120 ms
      long elapsedNs = ms(120);
      for (int i = 1; i <= 100; i++) {
        elapsedNs += i == 50 ? ms(180) : ms(30); // 99 gaps of 30 ms, one of 180 ms
        h.pipe(r.token(T0 + 130 + i * 40L, elapsedNs));
      }
      h.pipe(r.end(T0 + 4_400, elapsedNs));
      h.pipe(
          Scrapes.scrape(
              T0 + 4_750,
              "model-a",
              Map.of(),
              "p1",
              inBounds(0L, 50L, 0L, 0L, 0L),
              Scrapes.histogram(List.of(50_000L, 100_000L), 0L, 1L, 0L),
              3.0,
              0.12,
              2_048L,
              1_024L),
          Scrapes.failed(T0 + 5_000, "model-a", "p1", 1),
          Scrapes.scrape(
              T0 + 9_750,
              "model-a",
              Map.of(),
              "p1",
              inBounds(0L, 49L, 0L, 1L, 0L),
              null,
              5.0,
              0.13,
              2_048L,
              0L),
          Scrapes.scrape(
              T0 + 9_750,
              "model-b",
              Map.of(),
              "scraper",
              inBounds(0L, 4L, 0L, 0L, 0L),
              null,
              1.0,
              null,
              null,
              null));
      assertEquals(1, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'p'), "p1 only");
      assertEquals(0, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'r'), "no request open");
      h.pipe(Req.finalHeartbeat(T0 + 9_900, "p1", T0 + 9_900));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the window: nothing holds it

      List<WindowSummary> out = h.newSummaries();
      assertEquals(List.of("model-a", "model-b"), out.stream().map(WindowSummary::series).toList());
      WindowSummary a = out.get(0);
      assertEquals(new BigDecimal("30.015"), a.tpot().p50Ms());
      assertEquals(new BigDecimal("180.095"), a.tpot().p999Ms());
      assertEquals(new BigDecimal("120.063"), a.ttft().p50Ms());
      String json = h.json.get(0);
      assertEquals(
          "\"engine\":{\"scrapes\":2,\"failedScrapes\":1,\"resets\":0,"
              + "\"tpot\":{\"count\":100,\"p50Ms\":{\"loMs\":10.000,\"hiMs\":25.000},"
              + "\"p90Ms\":{\"loMs\":10.000,\"hiMs\":25.000},"
              + "\"p99Ms\":{\"loMs\":10.000,\"hiMs\":25.000},"
              + "\"p999Ms\":{\"loMs\":100.000,\"hiMs\":150.000}},"
              + "\"ttft\":{\"count\":1,\"p50Ms\":{\"loMs\":50.000,\"hiMs\":100.000},"
              + "\"p90Ms\":{\"loMs\":50.000,\"hiMs\":100.000},"
              + "\"p99Ms\":{\"loMs\":50.000,\"hiMs\":100.000},"
              + "\"p999Ms\":{\"loMs\":50.000,\"hiMs\":100.000}},"
              + "\"running\":{\"samples\":2,\"max\":5.0000,\"mean\":4.0000},"
              + "\"waiting\":{\"samples\":2,\"max\":0.0000,\"mean\":0.0000},"
              + "\"kvCacheUsage\":{\"samples\":2,\"max\":0.1300,\"mean\":0.1250},"
              + "\"prefixCacheHitRate\":0.2500,"
              + "\"outside\":{\"tpot\":{\"p50Ms\":{\"loMs\":5.015,\"hiMs\":20.015},"
              + "\"p99Ms\":{\"loMs\":5.015,\"hiMs\":20.015},"
              + "\"p999Ms\":{\"loMs\":30.095,\"hiMs\":80.095}},"
              + "\"ttft\":{\"p50Ms\":{\"loMs\":20.063,\"hiMs\":70.063},"
              + "\"p99Ms\":{\"loMs\":20.063,\"hiMs\":70.063},"
              + "\"p999Ms\":{\"loMs\":20.063,\"hiMs\":70.063}}}}",
          json.substring(json.indexOf("\"engine\":"), json.indexOf(",\"histograms\":")));

      WindowSummary b = out.get(1);
      assertEquals(0, b.requests().started());
      assertEquals(0, b.requests().failed());
      assertEquals(Map.of(), b.requests().errors());
      assertEquals(0, b.tpot().count());
      assertEquals(0, b.lateSamples());
      assertEquals(4, b.engine().tpot().count());
      assertNull(b.engine().outside(), "no client sample to take the engine's from");
      assertEquals(1, b.engine().scrapes());
    }
  }

  /** {@code tpot run}'s aggregator keeps its own run's engine events and no other run's. */
  @Test
  void theAggregatorOfOneRunKeepsThatRunsEngineEvents() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS, "run")) {
      TokenEvent ours =
          Scrapes.scrape(
              T0 + 4_750,
              "model-a",
              Map.of(),
              "p1",
              inBounds(0L, 3L, 0L, 0L, 0L),
              null,
              2.0,
              null,
              null,
              null);
      TokenEvent theirs =
          TokenEvent.engine(T0 + 4_750, "another-run", "model-a", null, "p2", ours.engine());
      h.pipe(Req.heartbeat(T0, "p1", T0), ours, theirs);
      h.pipe(Req.finalHeartbeat(T0 + 5_000, "p1", T0 + 5_000));
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size());
      assertEquals(1, out.get(0).engine().scrapes());
      assertEquals(3, out.get(0).engine().tpot().count());
    }
  }

  @Test
  void anEngineEventForAClosedWindowIsCountedLate() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      h.pipe(Req.heartbeat(T0, "p1", T0));
      h.pipe(
          Scrapes.scrape(
              T0 + 4_750,
              "model-a",
              Map.of(),
              "p1",
              inBounds(0L, 3L, 0L, 0L, 0L),
              null,
              2.0,
              null,
              null,
              null));
      h.pipe(Req.heartbeat(T0 + 10_500, "p1", T0 + 10_000));
      List<WindowSummary> first = h.newSummaries();
      assertEquals(1, first.size());
      assertEquals(3, first.get(0).engine().tpot().count());

      h.pipe(
          Scrapes.scrape(
              T0 + 9_750,
              "model-a",
              Map.of(),
              "p1",
              inBounds(0L, 5L, 0L, 0L, 0L),
              null,
              2.0,
              null,
              null,
              null));
      h.pipe(Req.heartbeat(T0 + 20_500, "p1", T0 + 20_000));
      List<WindowSummary> next = h.newSummaries();
      assertEquals(1, next.size());
      assertEquals(T0 + 10_000, next.get(0).windowStartMs(), "the series' oldest open window");
      assertEquals(1, next.get(0).lateSamples());
      assertNull(next.get(0).engine(), "its values are not in a window they do not belong to");
    }
  }

  @Test
  void thePromptCacheHitRateIsCachedOverPromptTokensOfTheRequestsThatReportedIt() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      h.pipe(Req.heartbeat(T0, "p1", T0));
      Req r1 = new Req("r1", "model-a");
      Req r2 = new Req("r2", "model-a");
      Req r3 = new Req("r3", "model-a");
      Req r4 = new Req("r4", "model-a");
      Req warm = new Req("w1", "model-a");
      Req r5 = new Req("r5", "model-a");
      Req b1 = new Req("b1", "model-b");
      for (Req r : List.of(r1, r2, r3, r4, warm, r5, b1)) {
        h.pipe(warm == r ? r.start(T0 + 10).asWarmup() : r.start(T0 + 10));
        h.pipe(warm == r ? r.token(T0 + 20, ms(10)).asWarmup() : r.token(T0 + 20, ms(10)));
      }
      h.pipe(
          r1.end(T0 + 100, ms(90), 1_000, 600),
          r2.end(T0 + 100, ms(90), 500, 0),
          r3.end(T0 + 100, ms(90), 300, null), // no cached tokens reported: left out
          r4.end(T0 + 100, ms(90), 200, 250), // more than its prompt: counts its 200
          warm.end(T0 + 100, ms(90), 100, 100).asWarmup(), // left out of every statistic
          r5.error(T0 + 100, ms(90), "timeout_idle"),
          b1.end(T0 + 100, ms(90), 700, null),
          Req.finalHeartbeat(T0 + 200, "p1", T0 + 150));
      h.advanceWallClock(Duration.ofSeconds(10));

      List<WindowSummary> out = h.newSummaries();
      assertEquals(List.of("model-a", "model-b"), out.stream().map(WindowSummary::series).toList());
      assertEquals(
          new PromptCache(3, 1_700, 800, new BigDecimal("0.4706")), out.get(0).promptCache());
      assertNull(out.get(1).promptCache(), "no request of model-b reported cached tokens");
      assertTrue(
          h.json
              .get(0)
              .contains(
                  ",\"promptCache\":{\"requests\":3,\"promptTokens\":1700,\"cachedTokens\":800,"
                      + "\"hitRate\":0.4706},"));
      assertTrue(!h.json.get(1).contains("promptCache"), h.json.get(1));
    }
  }

  @Test
  void warmUpRequestsAreCountedOnceAtTheirStartAndInNoOtherStatistic() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req warm = new Req("warm-1", "model-a");
      Req real = new Req("real-1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0));
      h.pipe(warm.start(T0 + 9_000).asWarmup(), warm.start(T0 + 9_000).asWarmup());
      h.pipe(
          warm.token(T0 + 9_100, ms(100)).asWarmup(),
          warm.token(T0 + 10_100, ms(1_100)).asWarmup());
      h.pipe(warm.end(T0 + 10_200, ms(1_200)).asWarmup());
      h.pipe(real.start(T0 + 10_300), real.token(T0 + 10_400, ms(100)));
      h.pipe(real.token(T0 + 10_450, ms(150)), real.end(T0 + 10_500, ms(200)));
      h.pipe(Req.finalHeartbeat(T0 + 10_600, "p1", T0 + 10_600));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window

      List<WindowSummary> out = h.newSummaries();
      assertEquals(2, out.size());
      WindowSummary first = out.get(0);
      assertEquals(1, first.warmupRequests(), "one warm-up request, counted at its start");
      assertEquals(0, first.requests().started());
      assertEquals(0, first.ttft().count());
      assertEquals(0, first.outputTokens());
      WindowSummary second = out.get(1);
      assertEquals(0, second.warmupRequests());
      assertEquals(1, second.tpot().count(), "only the measured request's gap");
      assertEquals(1, second.requests().started());
      assertEquals(1, second.requests().completed());
      assertEquals(1, second.e2e().count());
      assertEquals(0, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'r'));
    }
  }

  @Test
  void aCoalescedChunkStillGivesItsSamplesAndIsCounted() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 1), r.token(T0 + 100, ms(100)));
      h.pipe(r.token(T0 + 110, ms(110), 2).asCoalesced(), r.token(T0 + 150, ms(150)));
      h.pipe(r.end(T0 + 160, ms(160)), Req.finalHeartbeat(T0 + 200, "p1", T0 + 200));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window
      WindowSummary s = h.newSummaries().get(0);
      assertEquals(3, s.tpot().count());
      assertEquals(2, s.coalescedGaps(), "the two samples of the coalesced two-token chunk");
      assertEquals(new BigDecimal("5.000"), s.tpot().minMs());
    }
  }

  @Test
  void loopLagAndPausesGoToTheirWindowAndALateTickAloneMakesNothingSuspect() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      Req r = new Req("r1", "model-a");
      h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 1), r.token(T0 + 100, ms(100)));
      h.pipe(TokenEvent.heartbeat(T0 + 1_000, "run", "p1", T0 + 800, false, 300L, 7_500L, 4L));
      h.pipe(TokenEvent.heartbeat(T0 + 2_000, "run", "p1", T0 + 1_800, false, 200L, 900L, 0L));
      h.pipe(r.token(T0 + 2_100, ms(2_100)), r.end(T0 + 2_200, ms(2_200)));
      h.pipe(Req.finalHeartbeat(T0 + 2_300, "p1", T0 + 2_300));
      h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window
      WindowSummary s = h.newSummaries().get(0);
      assertEquals(new BigDecimal("7.500"), s.clientLagMaxMs());
      assertEquals(new BigDecimal("0.300"), s.clientPauseMaxMs());
      assertNull(s.clientTouched(), "no gap touched");
      assertEquals(false, s.clientSuspect(), "the late tick touched no gap");
    }
  }

  /**
   * 20 gaps of 10 ms, then 2 of 30 ms whose chunks carry the client's lag: the tail is the
   * client's, so the window is suspect, and the percentiles without them are the server's.
   */
  @Test
  void gapsTheClientsLagTouchedAreCountedAndMakeTheWindowSuspectWhenTheyMoveItsTail() {
    StageSettings lenient = TEN_SECONDS.withClientLagThreshold(Duration.ofMillis(25));
    for (StageSettings settings : List.of(TEN_SECONDS, lenient)) {
      try (TopologyHarness h = new TopologyHarness(settings)) {
        Req r = new Req("r1", "model-a");
        h.pipe(Req.heartbeat(T0, "p1", T0), r.start(T0 + 1), r.token(T0 + 10, ms(10)));
        long at = 10;
        for (int i = 0; i < 20; i++) {
          at += 10;
          h.pipe(r.token(T0 + at, ms(at)));
        }
        for (int i = 0; i < 2; i++) {
          at += 30;
          h.pipe(r.token(T0 + at, ms(at)).withClientLag(22_000));
        }
        h.pipe(r.end(T0 + at + 1, ms(at + 1)), Req.finalHeartbeat(T0 + at + 2, "p1", T0 + at + 2));
        h.advanceWallClock(Duration.ofSeconds(10)); // the clock passes the last window
        WindowSummary s = h.newSummaries().get(0);
        assertEquals(22, s.tpot().count());
        assertEquals(new BigDecimal("30.015"), s.tpot().p99Ms());
        assertEquals(2, s.clientTouched().gaps());
        assertEquals(new BigDecimal("1.0000"), s.clientTouched().tailShare());
        assertEquals(new BigDecimal("10.007"), s.clientTouched().tpotWithout().maxMs());
        boolean strict = settings == TEN_SECONDS;
        assertEquals(
            strict ? List.of("p99", "p99.9", "p99.99", "max") : List.of(),
            s.clientTouched().moved(),
            "20 ms higher with them: past 1 ms, not past 25 ms");
        assertEquals(strict, s.clientSuspect());
      }
    }
  }

  @Test
  void anotherVersionAndNegativeCountsGoToTheDeadLettersWithTheirReason() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      String v2 =
          "{\"type\":\"token\",\"v\":2,\"ts\":"
              + (T0 + 5)
              + ",\"requestId\":\"r1\",\"model\":\"m\",\"elapsedNs\":7,\"seq\":0}";
      h.pipeRaw("r1", v2.getBytes(StandardCharsets.UTF_8), T0 + 5);
      h.pipeRaw(
          "r1",
          v2.replace("\"v\":2", "\"v\":1").replace(":7,", ":-7,").getBytes(StandardCharsets.UTF_8),
          T0 + 5);
      List<TestRecord<byte[], byte[]>> dead = h.deadLetters();
      assertEquals(2, dead.size());
      assertTrue(
          header(dead.get(0), DeadLetterHeaders.REASON)
              .startsWith("not a token event: version v=2 is not 1"));
      assertTrue(
          header(dead.get(1), DeadLetterHeaders.REASON)
              .startsWith("not a token event: negative elapsedNs -7"));
    }
  }

  private static String header(TestRecord<byte[], byte[]> record, String name) {
    Header h = record.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
