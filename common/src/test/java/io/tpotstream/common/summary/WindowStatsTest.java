package io.tpotstream.common.summary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.tpotstream.common.Series;
import io.tpotstream.common.stats.HistogramCodec;
import java.math.BigDecimal;
import java.util.Map;
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

  @Test
  void seriesNamesSortLabels() {
    assertEquals("model-a", Series.name("model-a", Map.of()));
    assertEquals(
        "model-a{concurrency=5,target=gw}",
        Series.name("model-a", Map.of("target", "gw", "concurrency", "5")));
  }

  @Test
  void clientHealthIsCarriedAndFlagsTheWindowPastTheThreshold() {
    WindowStats quiet = sample();
    assertNull(quiet.toSummary("m", "m", null, 0, 10_000).clientSuspect(), "no client report");

    WindowStats lagging = sample();
    lagging.clientLag(1_400);
    lagging.clientPause(300);
    lagging.coalescedGaps(7);
    lagging.warmupRequests(2);
    WindowSummary s = lagging.toSummary("m", "m", null, 0, 10_000);
    assertEquals(new BigDecimal("1.400"), s.clientLagMaxMs());
    assertEquals(new BigDecimal("0.300"), s.clientPauseMaxMs());
    assertEquals(7, s.coalescedGaps());
    assertEquals(2, s.warmupRequests());
    assertEquals(Boolean.TRUE, s.clientSuspect(), "1.4 ms lag > default 1 ms");
    assertEquals(
        Boolean.FALSE, lagging.toSummary("m", "m", null, 0, 10_000, 2_000).clientSuspect());

    WindowStats paused = sample();
    paused.clientLag(200);
    paused.clientPause(5_000);
    assertEquals(
        Boolean.TRUE, paused.toSummary("m", "m", null, 0, 10_000).clientSuspect(), "a pause too");

    String json = WindowSummaryCodec.encodeToString(s);
    assertEquals(
        json,
        WindowSummaryCodec.encodeToString(
            WindowStats.fromSummary(WindowSummaryCodec.decode(json))
                .toSummary("m", "m", null, 0, 10_000)));
  }
}
