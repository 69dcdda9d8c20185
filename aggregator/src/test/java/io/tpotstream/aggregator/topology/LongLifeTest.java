package io.tpotstream.aggregator.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.summary.WindowSummary;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One aggregator over a long life: producers join, leave, crash and lie about the time around it
 * (docs/design.md, "Time, windows and completeness").
 */
class LongLifeTest {
  /** A window start for windows of 10 s and of 60 s. */
  static final long T0 = 1_700_000_040_000L;

  static final StageSettings TEN_SECONDS = StageSettings.defaults();

  private static long ms(long millis) {
    return millis * 1_000_000L;
  }

  /** Heartbeats every second from {@code fromMs} to {@code toMs}, then one request of 11 chunks. */
  private static void sampler(TopologyHarness h, String producer, long fromMs, boolean clean) {
    Req r = new Req(producer + "-r1", "model-a", Map.of(), producer);
    h.pipe(Req.heartbeat(fromMs, producer, fromMs - 200), r.start(fromMs + 1));
    for (int i = 0; i <= 10; i++) {
      h.pipe(r.token(fromMs + 100 + i * 100, ms(100 + i * 100)));
    }
    h.pipe(
        r.end(fromMs + 1_150, ms(1_150)), Req.heartbeat(fromMs + 1_200, producer, fromMs + 1_000));
    if (clean) {
      h.pipe(Req.finalHeartbeat(fromMs + 1_250, producer, fromMs + 1_250));
    }
  }

  private static long gaps(List<WindowSummary> summaries) {
    return summaries.stream().mapToLong(s -> s.tpot().count()).sum();
  }

  @ParameterizedTest
  @ValueSource(ints = {10, 60})
  void aSamplerThatStartsAfterAnotherEndedLandsInTheSameWindow(int windowSeconds) {
    StageSettings settings = TEN_SECONDS.withWindow(Duration.ofSeconds(windowSeconds));
    try (TopologyHarness h = new TopologyHarness(settings)) {
      sampler(h, "p-a", T0 + 1_000, true);
      h.advanceWallClock(Duration.ofSeconds(3)); // A has ended; B starts 3 s later
      sampler(h, "p-b", T0 + 5_000, true);
      assertTrue(h.newSummaries().isEmpty(), "the window is open until the clock passes its end");

      h.advanceWallClock(Duration.ofSeconds(windowSeconds));
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size());
      assertEquals(T0, out.get(0).windowStartMs());
      assertEquals(20, out.get(0).tpot().count(), "A's 10 gaps and B's 10");
      assertEquals(2, out.get(0).requests().completed());
      assertEquals(0, out.get(0).lateSamples());
    }
  }

  @Test
  void theAggregatorOfOneRunClosesTheLastWindowAtTheFinalHeartbeat() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS, "run")) {
      sampler(h, "p-a", T0 + 1_000, true);
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size(), "no producer can join one run's aggregation: no wait");
      assertEquals(10, out.get(0).tpot().count());
    }
  }

  @Test
  void aSampleForAClosedWindowIsCountedLateInAWindowThatIsEmitted() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      sampler(h, "p-a", T0 + 1_000, true);
      h.advanceWallClock(Duration.ofSeconds(10));
      assertEquals(10, gaps(h.newSummaries()));

      // a producer whose clock runs 9 s behind joins: its samples' window has closed
      sampler(h, "p-behind", T0 + 2_000, true);
      assertTrue(h.newSummaries().isEmpty());
      h.advanceWallClock(Duration.ofSeconds(10));
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size(), "the window open when they arrived carries the count");
      assertEquals(T0 + 10_000, out.get(0).windowStartMs());
      // its 10 gaps, TTFT, request TPOT and E2E, and its start and completion: 15 late samples
      assertEquals(15, out.get(0).lateSamples());
      assertEquals(0, out.get(0).tpot().count());
    }
  }

  @Test
  void aLoneProducerKilledHasItsLastWindowEmittedWithinTheTimeoutAndAWindow() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      sampler(h, "p-killed", T0 + 1_000, false); // kill -9: no final heartbeat, ever
      h.advanceWallClock(Duration.ofSeconds(60));
      assertTrue(h.newSummaries().isEmpty(), "held for the producer timeout (60 s of silence)");

      h.advanceWallClock(Duration.ofSeconds(2));
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size());
      assertEquals(10, out.get(0).tpot().count());
      assertEquals(1, out.get(0).requests().completed());
    }
  }

  @Test
  void aHeartbeatFromADayAheadIsDeadLetteredAndSilencesNoOne() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      long day = 86_400_000L;
      h.pipeAt(T0, Req.heartbeat(T0, "p-liar", T0 + day)); // written now, promising tomorrow
      h.pipeAt(T0 + 1, Req.heartbeat(T0 + 1 + day, "p-liar", T0 + day)); // ts a day ahead too
      sampler(h, "p-honest", T0 + 1_000, false);
      for (long s = 3; s <= 12; s++) {
        h.pipe(Req.heartbeat(T0 + s * 1_000, "p-honest", T0 + s * 1_000 - 200));
      }
      List<WindowSummary> out = h.newSummaries();
      assertEquals(1, out.size(), "the honest producer's watermark closes its window");
      assertEquals(10, out.get(0).tpot().count());
      assertEquals(0, out.get(0).lateSamples());

      List<TestRecord<byte[], byte[]>> dead = h.deadLetters();
      assertEquals(2, dead.size());
      assertTrue(reason(dead.get(0)).contains("its watermark"), reason(dead.get(0)));
      assertTrue(reason(dead.get(0)).contains("--max-clock-skew"), reason(dead.get(0)));
      assertTrue(reason(dead.get(1)).contains("its ts"), reason(dead.get(1)));
    }
  }

  @Test
  void aWatermarkAheadWithinTheSkewHoldsNothingBackForOthers() {
    try (TopologyHarness h = new TopologyHarness(TEN_SECONDS)) {
      // a producer 4 minutes ahead, within --max-clock-skew: trusted, and harmless to others
      h.pipeAt(T0, Req.heartbeat(T0 + 240_000, "p-ahead", T0 + 240_000));
      sampler(h, "p-honest", T0 + 1_000, false);
      for (long s = 3; s <= 10; s++) {
        h.pipe(Req.heartbeat(T0 + s * 1_000, "p-honest", T0 + s * 1_000 - 200));
      }
      assertTrue(h.newSummaries().isEmpty(), "p-honest's watermark has not passed the window");
      h.pipe(Req.heartbeat(T0 + 11_000, "p-honest", T0 + 10_800));
      assertEquals(10, gaps(h.newSummaries()));
      assertEquals(0, h.deadLetters().size());
    }
  }

  @Test
  void producersAndSeriesThatComeAndGoLeaveNoState() {
    StageSettings byRun = TEN_SECONDS.withGroupBy(List.of("sampler"));
    try (TopologyHarness h = new TopologyHarness(byRun)) {
      int producers = 1_000;
      for (int i = 0; i < producers; i++) {
        long at = T0 + i * 2_000L;
        String p = "p" + i;
        Req r = new Req(p + "-r", "model-a", Map.of("sampler", "s" + i), p);
        h.pipe(Req.heartbeat(at, p, at - 200), r.start(at + 1));
        h.pipe(r.token(at + 10, ms(9)), r.token(at + 20, ms(19)), r.token(at + 30, ms(29)));
        h.pipe(r.end(at + 40, ms(39)), Req.finalHeartbeat(at + 50, p, at + 50));
      }
      // one more producer, after the others' timeout: the next record prunes what is gone
      long last = T0 + producers * 2_000L + 70_000;
      h.pipe(Req.heartbeat(last, "p-last", last - 200));
      h.advanceWallClock(Duration.ofSeconds(1));

      assertEquals(1, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'p'), "producers kept");
      assertEquals(0, h.storeEntries(AggregatorTopology.STAGE1_STORE, 'n'), "series kept");
      for (char tag : new char[] {'r', 'w', 'h'}) {
        assertEquals(0, h.storeEntries(AggregatorTopology.STAGE1_STORE, tag), "stage 1 " + tag);
        assertEquals(0, h.storeEntries(AggregatorTopology.STAGE2_STORE, tag), "stage 2 " + tag);
      }
      List<WindowSummary> out = h.newSummaries();
      assertEquals(producers, out.size(), "one series per sampler");
      assertEquals(2L * producers, gaps(out));
      assertEquals(0, out.stream().mapToLong(WindowSummary::lateSamples).sum());
    }
  }

  private static String reason(TestRecord<byte[], byte[]> d) {
    Header h = d.headers().lastHeader(DeadLetterHeaders.REASON);
    return new String(h.value(), StandardCharsets.UTF_8);
  }
}
