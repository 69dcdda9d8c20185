package io.tpotstream.aggregator.stage1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.fixtures.Req;
import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventDecoder;
import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The per-request sample logic and close time, run through the offline path (same core). */
class PartitionStageTest {
  static final long T0 = 1_700_000_000_000L;

  private static List<WindowSummary> run(List<TokenEvent> events) {
    return OfflineStats.compute(
        events,
        StageSettings.defaults(),
        problem -> {
          throw new AssertionError(problem);
        });
  }

  private static long ms(long millis) {
    return millis * 1_000_000L;
  }

  @Test
  void aChunkOfThreeTokensGivesThreeSamplesOfAThirdOfItsGap() {
    Req r = new Req("r1", "model-a");
    List<WindowSummary> out =
        run(
            List.of(
                r.start(T0),
                r.token(T0 + 100, ms(100), 2),
                r.token(T0 + 130, ms(130), 3), // 30 ms for 3 tokens: three samples of 10 ms
                r.token(T0 + 131, ms(131), 1),
                r.end(T0 + 140, ms(140), 6)));
    WindowSummary s = out.get(0);
    LatencyHistogram expected = new LatencyHistogram();
    expected.recordMicros(10_000, 3);
    expected.recordMicros(1_000);
    assertEquals(expected, HistogramCodec.decode(s.histograms().tpot()));
    assertEquals(4, s.tpot().count());
    assertEquals(6, s.outputTokens());
    // request TPOT: 31 ms over (6 tokens - 2 of the first chunk)
    assertEquals(new BigDecimal("7.751"), s.requestTpot().p50Ms()); // 4 µs buckets here
  }

  @Test
  void gapsBeforeAnErrorCountAndTheRequestCountsAsFailed() {
    Req ok = new Req("ok", "model-a");
    Req bad = new Req("bad", "model-a");
    List<WindowSummary> out =
        run(
            List.of(
                ok.start(T0),
                bad.start(T0),
                ok.token(T0 + 10, ms(10)),
                bad.token(T0 + 11, ms(11)),
                bad.token(T0 + 16, ms(16)),
                bad.token(T0 + 18, ms(18)),
                ok.end(T0 + 20, ms(20)),
                bad.error(T0 + 30_000, ms(30_000), "timeout_idle")));
    assertEquals(2, out.size());
    WindowSummary first = out.get(0);
    assertEquals(2, first.tpot().count(), "the failed request's two gaps");
    assertEquals(1, first.requests().completed());
    assertEquals(1, first.requests().tooShort(), "one token: complete but too short");
    assertEquals(0, first.requestTpot().count());
    WindowSummary last = out.get(1);
    assertEquals(T0 + 30_000, last.windowStartMs());
    assertEquals(1, last.requests().failed());
    assertEquals(Map.of("timeout_idle", 1L), last.requests().errors());
    assertEquals(1, last.e2e().count());
    assertEquals(new BigDecimal("1.0000"), last.requests().errorRate());
  }

  @Test
  void aRepeatedChunkIsCountedOnce() {
    Req r = new Req("r1", "model-a");
    TokenEvent first = r.token(T0 + 10, ms(10));
    TokenEvent second = r.token(T0 + 20, ms(20));
    List<WindowSummary> out =
        run(List.of(r.start(T0), first, second, second, r.end(T0 + 30, ms(30))));
    assertEquals(1, out.get(0).tpot().count());
    assertEquals(2, out.get(0).outputTokens());
  }

  @Test
  void aGapAboveAnHourIsClampedToAnHourNotThrown() {
    Req r = new Req("r1", "model-a");
    long hourNs = 3_600_000_000_000L;
    List<WindowSummary> out =
        run(
            List.of(
                r.start(T0),
                r.token(T0 + 10, ms(10)),
                r.token(T0 + 20, ms(10) + 2 * hourNs), // a clock gone wild: two hours
                r.end(T0 + 30, ms(20) + 2 * hourNs)));
    WindowSummary s = out.get(0);
    assertEquals(1, s.tpot().count());
    assertEquals(
        LatencyHistogram.ms(HistogramCodec.decode(s.histograms().tpot()).maxMicros()),
        s.tpot().maxMs());
    // one hour's bucket, as HdrHistogram reports it
    assertEquals(new BigDecimal("3600809.983"), s.tpot().p50Ms());
    assertEquals(1, s.e2e().count());
  }

  @Test
  void closeTimeIsTheLowestWatermarkOfTheProducersThatHoldThePartition() {
    long clock = T0 + 90_000;
    List<CloseTime.Mark> marks =
        List.of(
            new CloseTime.Mark(T0 + 25_000, false, T0 + 35_000),
            new CloseTime.Mark(T0 + 41_000, false, T0 + 89_000),
            new CloseTime.Mark(T0 + 80_000, true, T0 + 89_000));
    assertEquals(T0 + 20_000, CloseTime.closedThroughMs(marks, clock, 10_000, 0, 60_000, false));
    assertEquals(
        T0 + 10_000, CloseTime.closedThroughMs(marks, clock, 10_000, 6_000, 60_000, false));
    // silent for more than the producer timeout by the partition's clock: no longer holding
    assertEquals(
        T0 + 40_000, CloseTime.closedThroughMs(marks, clock, 10_000, 0, 55_000 - 1, false));
  }

  @Test
  void aHighWatermarkNeverClosesWindowsOfTheProducersThatDidNotSendIt() {
    long clock = T0 + 20_000;
    List<CloseTime.Mark> marks =
        List.of(
            new CloseTime.Mark(T0 + 19_800, false, clock),
            new CloseTime.Mark(T0 + 86_400_000, false, clock)); // a day ahead
    assertEquals(T0 + 10_000, CloseTime.closedThroughMs(marks, clock, 10_000, 0, 60_000, false));
  }

  @Test
  void withNoProducerHoldingAWindowClosesWhenTheClockPassesItsEnd() {
    List<CloseTime.Mark> marks =
        List.of(
            new CloseTime.Mark(T0 + 25_000, true, T0 + 25_000),
            new CloseTime.Mark(T0 + 31_000, true, T0 + 31_000));
    // a producer may still join and write into [T0 + 30 s, T0 + 40 s) until the clock passes it
    assertEquals(
        T0 + 30_000, CloseTime.closedThroughMs(marks, T0 + 39_999, 10_000, 0, 60_000, false));
    assertEquals(
        T0 + 40_000, CloseTime.closedThroughMs(marks, T0 + 40_000, 10_000, 0, 60_000, false));
    assertEquals(
        T0 + 30_000, CloseTime.closedThroughMs(marks, T0 + 44_999, 10_000, 5_000, 60_000, false));
    assertEquals(
        CloseTime.NONE,
        CloseTime.closedThroughMs(List.of(), CloseTime.NONE, 10_000, 0, 60_000, false));
  }

  @Test
  void inOneRunsAggregatorTheWindowOfTheHighestFinalWatermarkClosesAtOnce() {
    List<CloseTime.Mark> marks =
        List.of(
            new CloseTime.Mark(T0 + 25_000, true, T0 + 25_000),
            new CloseTime.Mark(T0 + 31_000, true, T0 + 31_000));
    assertEquals(
        T0 + 40_000, CloseTime.closedThroughMs(marks, T0 + 31_000, 10_000, 5_000, 60_000, true));
  }

  /**
   * Stage 2 emits a window once every input partition has closed it. A partition whose producers
   * are all final and whose windows all closed must still close the window its clock is in (other
   * partitions may hold data there): it keeps its wall-clock tick until then, and not after.
   */
  @Test
  void aPartitionWithNothingOpenStillClosesTheWindowItsClockIsIn() {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    TokenEventDecoder decoder = new TokenEventDecoder();
    Markers out = new Markers();
    List<Long> markers = out.closed;
    long wall = T0 + 86_400_000; // a backlog: read a day later
    Req r = new Req("r1", "model-a");
    for (TokenEvent e :
        List.of(
            Req.heartbeat(T0 + 1_000, "p1", T0 + 800),
            r.start(T0 + 2_000),
            r.token(T0 + 2_100, ms(100)),
            r.end(T0 + 2_200, ms(200)),
            // its last record, in [T0 + 10 s, T0 + 20 s), where this partition holds nothing
            Req.finalHeartbeat(T0 + 10_500, "p1", T0 + 10_500))) {
      stage.onEvent(decoder.decode(e), e.ts(), wall, out);
    }
    assertEquals(List.of(T0, T0 + 10_000), markers);
    assertEquals(0, stage.openWindows());
    assertTrue(stage.hasPending(), "the window the clock is in is still open");
    stage.tick(wall + PartitionStage.IDLE_MS, out); // the clock moves to T0 + 12.5 s
    assertTrue(stage.hasPending());
    stage.tick(wall + PartitionStage.IDLE_MS + 9_500, out); // T0 + 20 s
    assertEquals(List.of(T0, T0 + 10_000, T0 + 20_000), markers);
    assertFalse(stage.hasPending(), "nothing more to close: an idle partition costs nothing");
  }

  /** The markers one stage emits, in order. */
  private static final class Markers implements Stage1Output {
    final List<Long> closed = new ArrayList<>();

    @Override
    public void partial(long windowStartMs, SeriesName series, WindowCounts counts) {}

    @Override
    public void windowHealth(long windowStartMs, long pauseMaxUs, long lagMaxUs) {}

    @Override
    public void closedThrough(long windowEndMs) {
      closed.add(windowEndMs);
    }
  }

  @Test
  void aWatermarkFarBehindTheBrokersTimeIsNotTrusted() {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    TokenEventDecoder decoder = new TokenEventDecoder();
    long broker = T0 + 600_000;
    // a producer whose clock is in the past would hold every window open
    String reason = stage.distrust(decoder.decode(Req.heartbeat(broker, "p", T0)), broker);
    assertEquals(
        "its watermark 2023-11-14T22:13:20Z is behind the record's broker timestamp"
            + " 2023-11-14T22:23:20Z by more than --max-clock-skew 5m: a producer clock in the"
            + " past, or a forged heartbeat",
        reason);
    // within the skew (a producer coming back from an outage): trusted
    assertEquals(
        null, stage.distrust(decoder.decode(Req.heartbeat(broker, "p", broker - 299_000)), broker));
    // at the contract's edge (year 3000; past it, the decoder refuses the record)
    assertTrue(
        stage
            .distrust(decoder.decode(Req.heartbeat(broker, "p", 32_503_680_000_000L)), broker)
            .startsWith("its watermark"));
  }

  @Test
  void aSilenceTheBrokerDidNotConfirmMovesNoClock() {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    TokenEventDecoder decoder = new TokenEventDecoder();
    Markers out = new Markers();
    long wall = T0 + 5_000;
    TokenEvent hb = Req.heartbeat(T0 + 5_000, "p1", T0 + 4_800);
    stage.onEvent(decoder.decode(hb), hb.ts(), wall, out);
    // answers that confirm it for a second, then 90 s of a broker outage: no answers
    stage.tick(wall + 1_000, wall + 900, out);
    stage.tick(wall + 2_000, wall + 1_900, out);
    for (long s = 3; s <= 90; s++) {
      stage.tick(wall + s * 1_000, Long.MIN_VALUE, out);
    }
    assertEquals(T0 + 5_000, stage.clockMs(), "an outage is not silence");
    assertEquals(List.of(T0), out.closed, "p1 holds [T0 + 10 s, ...) as it did before");
    // the broker is back and has nothing new for a moment: one answer confirms nothing
    stage.tick(wall + 91_000, wall + 91_000, out);
    assertEquals(T0 + 5_000, stage.clockMs());
    // answers a second apart confirm the time between them, counted from the first
    for (long s = 92; s <= 93; s++) {
      stage.tick(wall + s * 1_000, wall + s * 1_000, out);
    }
    assertEquals(T0 + 5_000 + 1_000 + 2_000, stage.clockMs(), "the second before, and two");
  }

  @Test
  void aGapInTheLogTimesOutNoProducer() {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    TokenEventDecoder decoder = new TokenEventDecoder();
    Markers out = new Markers();
    long wall = T0 + 86_400_000; // read later: only the records' broker times count
    Req held = new Req("held", "model-a", Map.of(), "p2");
    List<TokenEvent> before =
        List.of(
            Req.heartbeat(T0 + 1_000, "p1", T0 + 800),
            Req.heartbeat(T0 + 1_000, "p2", T0 + 800),
            held.start(T0 + 1_100));
    for (TokenEvent e : before) {
      stage.onEvent(decoder.decode(e), e.ts(), wall, out);
    }
    // the broker was down for 90 s (more than the 60 s producer timeout); then p1's held
    // heartbeats come first, stamped by the broker at its return
    long back = T0 + 91_000;
    for (long w = 1_050; w <= 90_000; w += 10_000) {
      stage.onEvent(decoder.decode(Req.heartbeat(T0 + w, "p1", T0 + w)), back, wall, out);
    }
    // p2 still holds the windows of its held request: they stay open for it
    assertEquals(List.of(T0), out.closed);
    TokenEvent token = held.token(T0 + 1_200, ms(100));
    stage.onEvent(decoder.decode(token), back, wall, out);
    assertEquals(1, stage.openWindows());
  }

  @Test
  void aForgedFinalMarkReleasesItsVictimOnlyUntilItsNextHeartbeat() {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    TokenEventDecoder decoder = new TokenEventDecoder();
    Markers out = new Markers();
    long wall = T0 + 86_400_000;
    List<TokenEvent> events =
        List.of(
            Req.heartbeat(T0 + 1_000, "victim", T0 + 800),
            Req.heartbeat(T0 + 1_000, "other", T0 + 800),
            Req.finalHeartbeat(T0 + 1_100, "victim", T0 + 1_100), // forged
            Req.heartbeat(T0 + 1_250, "victim", T0 + 1_050), // the victim goes on
            Req.heartbeat(T0 + 35_000, "other", T0 + 34_800));
    for (TokenEvent e : events) {
      stage.onEvent(decoder.decode(e), e.ts(), wall, out);
    }
    assertEquals(List.of(T0), out.closed, "the victim holds again from its next heartbeat");
  }

  @Test
  void thousandsOfProducersCloseAtTheLowestHoldingWatermark() {
    PartitionStage stage = new PartitionStage(StageSettings.defaults());
    TokenEventDecoder decoder = new TokenEventDecoder();
    Markers out = new Markers();
    long wall = T0 + 86_400_000;
    for (int i = 0; i < 5_000; i++) {
      TokenEvent e = Req.heartbeat(T0 + 1_000, "p" + i, T0 + 25_000 + i);
      stage.onEvent(decoder.decode(e), e.ts(), wall, out);
    }
    for (int i = 0; i < 5_000; i++) {
      TokenEvent e = Req.heartbeat(T0 + 46_000, "p" + i, T0 + 45_800);
      stage.onEvent(decoder.decode(e), e.ts(), wall, out);
      if (i == 4_998) {
        assertEquals(T0 + 20_000, stage.closedThroughMs(), "p4999 still at T0 + 29.999 s");
      }
    }
    assertEquals(T0 + 40_000, stage.closedThroughMs());
    // one goes silent: after the producer timeout (by the others' heartbeats) it holds nothing
    for (long s = 47; s <= 110; s++) {
      for (int i = 1; i < 5_000; i += 1_000) {
        TokenEvent e = Req.heartbeat(T0 + s * 1_000, "p" + i, T0 + s * 1_000 - 200);
        stage.onEvent(decoder.decode(e), e.ts(), wall, out);
      }
    }
    assertEquals(T0 + 100_000, stage.closedThroughMs());
  }
}
