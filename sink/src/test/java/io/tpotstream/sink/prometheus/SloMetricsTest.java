package io.tpotstream.sink.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.Promtool;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The SLO on {@code /metrics}: counters over the sink's life, the latest window's verdicts. */
class SloMetricsTest {
  private static final SloSpec SLO = SloSpec.parse("tpot_p99=50ms,error_rate=10%", "ttft=1s");

  /** A window whose TPOT is {@code gapUs}; 5 requests finished, {@code good} of them good. */
  private static WindowSummary window(int index, long gapUs, int good, SloSpec slo) {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(gapUs, 100);
    stats.started(5);
    stats.completed(5, false);
    stats.good(good);
    return stats.toSummary("m", "m", Map.of(), index * 10_000L, (index + 1) * 10_000L, 1_000, slo);
  }

  private static String serve(WindowSummary... windows) throws Exception {
    PrometheusView view = new PrometheusView();
    for (WindowSummary w : windows) {
      view.add(w);
    }
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      return PrometheusEndpointTest.scrape(endpoint.port());
    }
  }

  @Test
  void windowsJudgedMissedAndGoodRequestsAddUpAndTheLatestVerdictIsShown() throws Exception {
    PromText m =
        PromText.parse(
            serve(window(0, 80_000, 5, SLO), window(1, 2_000, 4, SLO), window(2, 90_000, 1, SLO)));
    Map<String, String> model = Map.of("model", "m");
    assertEquals(3.0, m.value("tpot_slo_windows_total", model));
    assertEquals(2.0, m.value("tpot_slo_missed_windows_total", model));
    assertEquals(10.0, m.value("tpot_good_requests_total", model));
    assertEquals(0.0, m.value("tpot_window_slo_met", model));
    assertEquals(0.2, m.value("tpot_window_goodput_ratio", model));
    Map<String, String> p99 = Map.of("model", "m", "objective", "tpot_p99");
    assertEquals(0.0, m.value("tpot_window_slo_objective_met", p99));
    assertEquals(0.090047, m.value("tpot_window_slo_objective_value", p99), 1e-9);
    assertEquals(0.05, m.value("tpot_window_slo_objective_limit", p99));
    Map<String, String> errors = Map.of("model", "m", "objective", "error_rate");
    assertEquals(1.0, m.value("tpot_window_slo_objective_met", errors));
    assertEquals(0.0, m.value("tpot_window_slo_objective_value", errors));
    assertEquals(0.1, m.value("tpot_window_slo_objective_limit", errors));
    assertEquals(0.0, m.value("tpot_window_slo_objective_no_data", errors));
  }

  @Test
  void anObjectiveWithNoDataInTheLatestWindowIsMissedAndFlagged() throws Exception {
    WindowStats failed = new WindowStats();
    failed.started(6);
    failed.failed("http_401", 6);
    PromText m =
        PromText.parse(
            serve(
                window(0, 2_000, 5, SLO),
                failed.toSummary("m", "m", Map.of(), 10_000, 20_000, 1_000, SLO)));
    Map<String, String> model = Map.of("model", "m");
    assertEquals(2.0, m.value("tpot_slo_windows_total", model));
    assertEquals(1.0, m.value("tpot_slo_missed_windows_total", model));
    assertEquals(0.0, m.value("tpot_window_slo_met", model));
    Map<String, String> p99 = Map.of("model", "m", "objective", "tpot_p99");
    assertEquals(0.0, m.value("tpot_window_slo_objective_met", p99));
    assertEquals(1.0, m.value("tpot_window_slo_objective_no_data", p99));
    assertTrue(Double.isNaN(m.value("tpot_window_slo_objective_value", p99)));
    Map<String, String> errors = Map.of("model", "m", "objective", "error_rate");
    assertEquals(0.0, m.value("tpot_window_slo_objective_no_data", errors));
    assertEquals(1.0, m.value("tpot_window_slo_objective_value", errors));
    assertEquals(0.0, m.value("tpot_window_slo_objective_met", errors));
  }

  @Test
  void withoutAnSloTheCountersAreZeroAndTheVerdictNaN() throws Exception {
    PromText m = PromText.parse(serve(window(0, 2_000, 0, SloSpec.NONE)));
    Map<String, String> model = Map.of("model", "m");
    assertEquals(0.0, m.value("tpot_slo_missed_windows_total", model));
    assertTrue(Double.isNaN(m.value("tpot_window_slo_met", model)));
    assertTrue(m.samples.stream().noneMatch(s -> s.name().startsWith("tpot_window_slo_objective")));
  }

  @Tag("slow")
  @Test
  void passesPromtoolCheckMetrics() throws Exception {
    Promtool.assumeInstalled();
    Promtool.assertMetricsPass(serve(window(0, 80_000, 5, SLO)));
  }
}
