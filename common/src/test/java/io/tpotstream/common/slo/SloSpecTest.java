package io.tpotstream.common.slo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SloSpecTest {

  /** 99 gaps of 2 ms and one of 60 ms; TTFT 300 ms and 900 ms; 3 completed (2 good), 1 failed. */
  private static WindowStats window() {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(2_000, 99);
    stats.tpot.recordMicros(60_000);
    stats.ttft.recordMicros(300_000);
    stats.ttft.recordMicros(900_000);
    stats.requestTpot.recordMicros(1_900);
    stats.e2e.recordMicros(1_500_000);
    stats.started(4);
    stats.completed(3, false);
    stats.failed("http_500", 1);
    stats.good(2);
    return stats;
  }

  @Test
  void objectivesAreMeasuredOnTheWindowAndComparedWithTheirLimits() {
    SloSpec spec =
        SloSpec.parse(
            "tpot_p99=50ms,tpot_max=50ms,ttft_p50=0.5s,error_rate=30%,request_tpot_mean=2ms", null);
    SloResult r = spec.evaluate(window());
    assertEquals(5, r.objectives().size());
    ObjectiveResult p99 = r.objectives().get(0);
    assertEquals("tpot_p99", p99.name());
    assertEquals(new BigDecimal("50.000"), p99.limit());
    assertEquals(new BigDecimal("2.000"), p99.measured());
    assertTrue(p99.met());
    ObjectiveResult max = r.objectives().get(1);
    assertEquals(new BigDecimal("60.031"), max.measured()); // HdrHistogram's bucket of 60 ms
    assertFalse(max.met());
    assertEquals(new BigDecimal("300.031"), r.objectives().get(2).measured());
    assertEquals(new BigDecimal("0.2500"), r.objectives().get(3).measured());
    assertTrue(r.objectives().get(3).met());
    assertTrue(r.objectives().get(4).met());
    assertFalse(r.met());
    assertNull(r.goodput(), "no goodput limits, no goodput");
    assertEquals(1, r.missed().size());
  }

  @Test
  void goodputIsTheShareOfFinishedRequestsThatMetEveryLimit() {
    SloSpec spec = SloSpec.parse("goodput=50%", "ttft=1s,request_tpot=40ms");
    SloResult r = spec.evaluate(window());
    assertEquals(new BigDecimal("0.5000"), r.goodput());
    assertEquals(2L, r.goodRequests());
    assertTrue(r.met());
    assertFalse(SloSpec.parse("goodput=51%", "ttft=1s").evaluate(window()).met());
  }

  @Test
  void theSloSectionRoundTripsAndMergesExactly() {
    SloSpec spec = SloSpec.parse("tpot_p99.9=50ms", "e2e=2s");
    WindowSummary s =
        window()
            .toSummary(
                "m", "m", Map.of(), 0, 10_000, WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US, spec);
    String json = WindowSummaryCodec.encodeToString(s);
    assertTrue(
        json.contains(
            "\"slo\":{\"objectives\":[{\"name\":\"tpot_p99.9\",\"limit\":50.000,\"measured\":60.031,"
                + "\"met\":false}],\"goodput\":0.5000,\"goodRequests\":2,\"met\":false}"),
        json);
    WindowStats merged = WindowStats.fromSummary(WindowSummaryCodec.decode(json));
    merged.add(WindowStats.fromSummary(s));
    assertEquals(4, merged.goodRequests());
    assertEquals(new BigDecimal("0.5000"), spec.evaluate(merged).goodput());
    WindowSummary without = window().toSummary("m", "m", Map.of(), 0, 10_000);
    assertFalse(WindowSummaryCodec.encodeToString(without).contains("slo"));
  }

  /** 6 requests started, all failed with HTTP 401: no token, so no TPOT, TTFT or request TPOT. */
  private static WindowStats everyRequestFailed() {
    WindowStats stats = new WindowStats();
    stats.started(6);
    stats.failed("http_401", 6);
    return stats;
  }

  @Test
  void anObjectiveOverAnEmptyHistogramIsNotMetAndSaysNoData() {
    SloSpec spec = SloSpec.parse("tpot_p99=0.001ms,ttft_p99=1s,request_tpot_mean=1ms", null);
    SloResult r = spec.evaluate(everyRequestFailed());
    assertFalse(r.met());
    assertEquals(3, r.missed().size());
    ObjectiveResult p99 = r.objectives().get(0);
    assertEquals(new ObjectiveResult("tpot_p99", new BigDecimal("0.001"), null, false, true), p99);
    assertTrue(p99.hasNoData());
    assertEquals("tpot_p99: no data, 0 samples", p99.describe());
    assertEquals("tpot_p99:no_data", p99.missedName());
    assertEquals(
        "tpot_p99: no data, 0 samples, ttft_p99: no data, 0 samples,"
            + " request_tpot_mean: no data, 0 samples",
        r.missedText());
  }

  @Test
  void anErrorRateOverOnlyFailedRequestsHasDataButOneOverNoFinishedRequestHasNone() {
    SloSpec spec = SloSpec.parse("error_rate=100%,goodput=0%", "ttft=1s");
    SloResult failed = spec.evaluate(everyRequestFailed());
    assertEquals(
        new ObjectiveResult("error_rate", BigDecimal.ONE, new BigDecimal("1.0000"), true, null),
        failed.objectives().get(0));
    assertEquals(
        new ObjectiveResult("goodput", BigDecimal.ZERO, new BigDecimal("0.0000"), true, null),
        failed.objectives().get(1));
    assertTrue(failed.met());

    SloResult empty = spec.evaluate(new WindowStats());
    assertFalse(empty.met());
    assertEquals("error_rate: no data, 0 finished requests", empty.objectives().get(0).describe());
    assertEquals("goodput: no data, 0 finished requests", empty.objectives().get(1).describe());
    assertNull(empty.goodput());
  }

  @Test
  void noDataIsWrittenAsMetFalseAndNoDataTrueWithoutMeasured() {
    SloSpec spec = SloSpec.parse("tpot_p99=0.001ms,error_rate=100%", null);
    WindowSummary s =
        everyRequestFailed()
            .toSummary(
                "m", "m", Map.of(), 0, 10_000, WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US, spec);
    String json = WindowSummaryCodec.encodeToString(s);
    assertTrue(
        json.contains(
            "\"slo\":{\"objectives\":[{\"name\":\"tpot_p99\",\"limit\":0.001,\"met\":false,"
                + "\"noData\":true},{\"name\":\"error_rate\",\"limit\":1,\"measured\":1.0000,"
                + "\"met\":true}],\"met\":false}"),
        json);
    assertEquals(s.slo(), WindowSummaryCodec.decode(json).slo());
  }

  @Test
  void theVerdictNamesTheSeriesAndObjectiveThatHadNoData() {
    SloSpec spec = SloSpec.parse("tpot_p99=0.001ms", null);
    SloVerdict v = SloVerdict.of(spec, Map.of("model-a", spec.evaluate(everyRequestFailed())));
    assertFalse(v.met());
    assertEquals(SloVerdict.EXIT_FAILED, v.exitCode());
    assertEquals("SLO failed: tpot_p99: no data, 0 samples (model-a)", v.line());
  }

  @Test
  void badSpecsSayWhatToWrite() {
    assertEquals(
        "--slo: unknown objective 'itl_p99': use tpot_, ttft_, request_tpot_ or e2e_ with p50,"
            + " p99, p99.9, max or mean (e.g. tpot_p99), error_rate or goodput",
        assertThrows(IllegalArgumentException.class, () -> SloSpec.parse("itl_p99=5ms", null))
            .getMessage());
    assertEquals(
        "--slo tpot_p99: cannot read 'fast' as a duration (write e.g. 50ms, 1.5s, 10m, 2h)",
        assertThrows(IllegalArgumentException.class, () -> SloSpec.parse("tpot_p99=fast", null))
            .getMessage());
    assertEquals(
        "--slo error_rate: '150%' is not a share between 0% and 100%",
        assertThrows(IllegalArgumentException.class, () -> SloSpec.parse("error_rate=150%", null))
            .getMessage());
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> SloSpec.parse("goodput=90%", null))
            .getMessage()
            .startsWith("--slo goodput needs the per-request limits"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> GoodputLimits.parse("tpot=40ms"))
            .getMessage()
            .contains("request_tpot=40ms"));
  }

  @Test
  void percentileNamesFollowTheSummaryFields() {
    SloSpec spec = SloSpec.parse("e2e_p999=1s,e2e_p99.99=1s,ttft_p90=1s", null);
    assertEquals(99.9, spec.objectives().get(0).percentile());
    assertEquals(99.99, spec.objectives().get(1).percentile());
    assertEquals(90.0, spec.objectives().get(2).percentile());
    SloSpec back = SloSpec.parse(spec.sloText(), spec.goodputText());
    assertEquals(spec, back);
    SloSpec g = SloSpec.parse("error_rate=1%", "ttft=1.5s,request_tpot=40ms");
    assertEquals(g, SloSpec.parse(g.sloText(), g.goodputText()));
  }

  @Test
  void theVerdictNamesTheMissedObjectiveAndTheSeries() {
    SloSpec spec = SloSpec.parse("tpot_max=50ms,error_rate=30%", null);
    SloVerdict failed = SloVerdict.of(spec, Map.of("model-a", spec.evaluate(window())));
    assertFalse(failed.met());
    assertEquals(3, failed.exitCode());
    assertEquals("SLO failed: tpot_max 60.031 ms > 50 ms (model-a)", failed.line());
    SloSpec easy = SloSpec.parse("tpot_p99=1s,error_rate=50%", "ttft=1s");
    SloVerdict met = SloVerdict.of(easy, Map.of("model-a", easy.evaluate(window())));
    assertTrue(met.met());
    assertEquals(0, met.exitCode());
    assertEquals(
        "SLO met: tpot_p99 <= 1000 ms, error_rate <= 50% (1 series, whole run); goodput 50%",
        met.line());
  }
}
