package io.tpotstream.common.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.tpotstream.common.Series;
import io.tpotstream.common.stats.HistogramCodec;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class WindowStatsTest {

  private static WindowStats sample() {
    return addSample(new WindowStats());
  }

  /** Adds the sample window's values to {@code stats}. */
  private static WindowStats addSample(WindowStats stats) {
    for (int i = 0; i < 99; i++) {
      stats.tpot.recordMicros(2_000);
    }
    stats.tpot.recordMicros(50_000);
    stats.ttft.recordMicros(150_000);
    stats.ttft.recordMicros(250_000);
    stats.requestTpot.recordMicros(2_480);
    stats.e2e.recordMicros(400_000);
    stats.started(3);
    stats.completed(2, false);
    stats.completed(1, true);
    stats.failed("http_429", 1);
    stats.outputTokens(250);
    return stats;
  }

  @Test
  void summaryCarriesCountsRatesAndPercentiles() {
    WindowSummary s =
        sample()
            .toSummary(
                "model-a{concurrency=10}", "model-a", Map.of("concurrency", "10"), 10_000, 20_000);
    assertEquals("1970-01-01T00:00:10Z", s.windowStart());
    assertEquals("1970-01-01T00:00:20Z", s.windowEnd());
    assertEquals(100, s.tpot().count());
    assertEquals(new BigDecimal("2.000"), s.tpot().p50Ms());
    assertEquals(new BigDecimal("2.000"), s.tpot().p99Ms());
    assertEquals(new BigDecimal("2.480"), s.tpot().meanMs());
    assertEquals(3, s.requests().completed());
    assertEquals(1, s.requests().tooShort());
    assertEquals(new BigDecimal("0.2500"), s.requests().errorRate());
    assertEquals(Map.of("http_429", 1L), s.requests().errors());
    assertEquals(new BigDecimal("25.000"), s.tokensPerSecond());
    assertNull(s.scheduleLag(), "closed-loop summaries omit scheduleLag");
    assertNull(s.histograms().scheduleLag());
  }

  @Test
  void summaryJsonRoundTripsAndRebuildsTheSameStats() {
    WindowSummary s = sample().toSummary("model-a", "model-a", null, 10_000, 20_000);
    String json = WindowSummaryCodec.encodeToString(s);
    WindowSummary decoded = WindowSummaryCodec.decode(json);
    assertEquals(s, decoded);
    assertEquals(json, WindowSummaryCodec.encodeToString(decoded));
    WindowSummary rebuilt =
        WindowStats.fromSummary(decoded).toSummary("model-a", "model-a", null, 10_000, 20_000);
    assertEquals(json, WindowSummaryCodec.encodeToString(rebuilt));
  }

  @Test
  void mergedPartialsEqualOneAccumulator() {
    WindowStats merged = sample().add(sample());
    WindowStats once = addSample(sample());
    assertEquals(
        WindowSummaryCodec.encodeToString(once.toSummary("m", "m", null, 0, 10_000)),
        WindowSummaryCodec.encodeToString(merged.toSummary("m", "m", null, 0, 10_000)));
    assertEquals(
        HistogramCodec.decode(HistogramCodec.encode(once.tpot)),
        HistogramCodec.decode(HistogramCodec.encode(merged.tpot)));
  }

  /**
   * Stage 2 builds every summary in one WindowStats, reset in between: each summary is
   * byte-identical to one built in a fresh WindowStats, whatever the summary before it held (the
   * touched histograms, errors and client figures included).
   */
  @Test
  void aResetWindowStatsBuildsTheSameSummariesAsFreshOnes() {
    WindowStats reused = new WindowStats();
    List<WindowStats> fresh = List.of(touched(5, 30_000), sample(), new WindowStats(), sample());
    List<Consumer<WindowStats>> fills =
        List.of(
            w -> fillTouched(w, 5, 30_000),
            WindowStatsTest::addSample,
            w -> {},
            WindowStatsTest::addSample);
    for (int i = 0; i < fresh.size(); i++) {
      reused.reset();
      fills.get(i).accept(reused);
      assertEquals(
          WindowSummaryCodec.encodeToString(fresh.get(i).toSummary("m", "m", null, 0, 10_000)),
          WindowSummaryCodec.encodeToString(reused.toSummary("m", "m", null, 0, 10_000)),
          "summary " + i);
    }
  }

  @Test
  void seriesNamesSortLabels() {
    assertEquals("model-a", Series.name("model-a", Map.of()));
    assertEquals(
        "model-a{concurrency=5,target=gw}",
        Series.name("model-a", Map.of("target", "gw", "concurrency", "5")));
  }

  @Test
  void clientHealthIsCarried() {
    WindowStats quiet = sample();
    WindowSummary none = quiet.toSummary("m", "m", null, 0, 10_000);
    assertNull(none.clientSuspect(), "no client report");
    assertNull(none.clientTouched(), "no client report");

    WindowStats lagging = sample();
    lagging.clientLag(7_400);
    lagging.clientPause(300);
    lagging.coalescedGaps(7);
    lagging.warmupRequests(2);
    WindowSummary s = lagging.toSummary("m", "m", null, 0, 10_000);
    assertEquals(new BigDecimal("7.400"), s.clientLagMaxMs());
    assertEquals(new BigDecimal("0.300"), s.clientPauseMaxMs());
    assertEquals(7, s.coalescedGaps());
    assertEquals(2, s.warmupRequests());
    assertEquals(
        Boolean.FALSE, s.clientSuspect(), "a late tick that touched no gap moves no percentile");
    assertNull(s.clientTouched(), "no gap touched: left out, as before there was attribution");
  }

  /**
   * 1,000 gaps of 20 ms, and 10 of 30 ms; {@code touched} of the gaps of {@code touchedMicros} had
   * the client's loop 10 ms late within them.
   */
  private static WindowStats touched(int touched, long touchedMicros) {
    return fillTouched(new WindowStats(), touched, touchedMicros);
  }

  private static WindowStats fillTouched(WindowStats stats, int touched, long touchedMicros) {
    stats.tpot.recordMicros(20_000, 1_000);
    stats.tpot.recordMicros(30_000, 10);
    stats.clientTouched(touchedMicros, 10_000, touched);
    stats.clientLag(12_000);
    return stats;
  }

  @Test
  void aWindowIsSuspectWhenTheTouchedGapsRaiseAReportedPercentile() {
    WindowSummary s = touched(10, 30_000).toSummary("m", "m", null, 0, 10_000);
    ClientTouch touch = s.clientTouched();
    assertEquals(10, touch.gaps());
    // at or above p99 (20 ms, its whole bucket): all 1,010 gaps, 10 of them touched
    assertEquals(new BigDecimal("0.0099"), touch.tailShare());
    // the 10 ms taken out of each touched 30 ms gap: 20 ms at best
    assertEquals(1_010, touch.tpotWithout().count());
    assertEquals(new BigDecimal("20.015"), touch.tpotWithout().maxMs());
    assertEquals(List.of("p99.9", "p99.99", "max"), touch.moved());
    assertEquals(Boolean.TRUE, s.clientSuspect());
    assertEquals(new BigDecimal("30.015"), s.tpot().p999Ms(), "the reported values stay");

    assertEquals(
        Boolean.FALSE,
        touched(10, 30_000).toSummary("m", "m", null, 0, 10_000, 10_100).clientSuspect(),
        "they raise p99.9 by 10 ms: not past a 10.1 ms threshold");
  }

  @Test
  void touchedGapsInTheBodyMoveNothing() {
    WindowSummary s = touched(10, 20_000).toSummary("m", "m", null, 0, 10_000);
    assertEquals(10, s.clientTouched().gaps());
    assertEquals(List.of(), s.clientTouched().moved());
    assertEquals(Boolean.FALSE, s.clientSuspect());
  }

  @Test
  void aLagLongerThanItsGapLeavesAZeroGapAndSmallLagsMoveNothing() {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(20_000, 5);
    stats.clientTouched(20_000, 25_000, 5);
    WindowSummary s = stats.toSummary("m", "m", null, 0, 10_000);
    assertEquals(new BigDecimal("0.000"), s.clientTouched().tpotWithout().maxMs());
    assertEquals(List.of("p50", "p90", "p99", "p99.9", "p99.99", "max"), s.clientTouched().moved());
    assertEquals(Boolean.TRUE, s.clientSuspect());

    WindowStats small = new WindowStats();
    small.tpot.recordMicros(20_000, 5);
    small.clientTouched(20_000, 900, 5);
    assertEquals(Boolean.FALSE, small.toSummary("m", "m", null, 0, 10_000).clientSuspect());
  }

  @Test
  void theTouchedHistogramSurvivesTheSummaryAndMerges() {
    WindowSummary s = touched(10, 30_000).toSummary("m", "m", null, 0, 10_000);
    String json = WindowSummaryCodec.encodeToString(s);
    WindowStats back = WindowStats.fromSummary(WindowSummaryCodec.decode(json));
    assertEquals(
        json, WindowSummaryCodec.encodeToString(back.toSummary("m", "m", null, 0, 10_000)));
    back.add(touched(10, 30_000));
    assertEquals(20, back.toSummary("m", "m", null, 0, 10_000).clientTouched().gaps());
  }
}
