package io.tpotstream.sink.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.Promtool;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The inference engine's view on {@code /metrics}: scrape counters over the sink's life, and the
 * latest window's engine intervals and time added outside the engine, as interval ends.
 */
class EngineMetricsTest {
  private static final Map<String, String> A = Map.of("model", "model-a", "concurrency", "5");

  private static String serve(WindowSummary... windows) throws Exception {
    PrometheusView view = new PrometheusView();
    for (WindowSummary w : windows) {
      view.add(w);
    }
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      return PrometheusEndpointTest.scrape(endpoint.port());
    }
  }

  /** The lines of {@code text} that start with {@code prefix}, in order. */
  private static List<String> lines(String text, String prefix) {
    return Arrays.stream(text.split("\n")).filter(l -> l.startsWith(prefix)).toList();
  }

  @Test
  void exactLinesForAWindowWithAnEngineSection() throws Exception {
    String text = serve(TestWindows.knownWithEngine("model-a", Map.of("concurrency", "5"), 1));

    String a = "concurrency=\"5\",model=\"model-a\"";
    assertEquals(
        List.of(
            "tpot_engine_scrapes_total{" + a + "} 2.0",
            "tpot_engine_failed_scrapes_total{" + a + "} 1.0"),
        List.of(
            lines(text, "tpot_engine_scrapes_total{").get(0),
            lines(text, "tpot_engine_failed_scrapes_total{").get(0)));
    // the engine's TPOT p99.9 is in its +Inf bucket: no upper end
    assertEquals(
        List.of(
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"50\",stat=\"e2e\"} 0.0025",
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"50\",stat=\"tpot\"} 5.0E-4",
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"50\",stat=\"ttft\"} 0.001",
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99\",stat=\"e2e\"} 0.0025",
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99\",stat=\"tpot\"} 0.001",
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99\",stat=\"ttft\"} 0.0025",
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99.9\",stat=\"e2e\"} 0.0025",
            "tpot_window_engine_latency_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99.9\",stat=\"ttft\"} 0.0025",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"50\",stat=\"e2e\"} 0.001",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"50\",stat=\"tpot\"} 2.5E-4",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"50\",stat=\"ttft\"} 5.0E-4",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99\",stat=\"e2e\"} 0.001",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99\",stat=\"tpot\"} 5.0E-4",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99\",stat=\"ttft\"} 0.001",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99.9\",stat=\"e2e\"} 0.001",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99.9\",stat=\"tpot\"} 0.001",
            "tpot_window_engine_latency_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99.9\",stat=\"ttft\"} 0.001"),
        lines(text, "tpot_window_engine_latency_seconds{"));
    assertTrue(
        text.contains(
            "# HELP tpot_window_engine_latency_seconds The engine's own TPOT, TTFT or E2E (stat) in"
                + " the latest closed window: the lower (bound=lo) and upper (bound=hi) end of the"
                + " engine histogram's bucket that holds the percentile (no hi for the +Inf bucket)\n"
                + "# TYPE tpot_window_engine_latency_seconds gauge\n"),
        text);
    // the client's TPOT 0.500/0.990/1.000 ms and TTFT 1.200/2.000/2.000 ms minus the intervals
    assertEquals(
        List.of(
            "tpot_window_outside_engine_seconds{bound=\"hi\","
                + a
                + ",percentile=\"50\",stat=\"tpot\"} 2.5E-4",
            "tpot_window_outside_engine_seconds{bound=\"hi\","
                + a
                + ",percentile=\"50\",stat=\"ttft\"} 7.0E-4",
            "tpot_window_outside_engine_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99\",stat=\"tpot\"} 4.9E-4",
            "tpot_window_outside_engine_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99\",stat=\"ttft\"} 0.001",
            "tpot_window_outside_engine_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99.9\",stat=\"tpot\"} 0.0",
            "tpot_window_outside_engine_seconds{bound=\"hi\","
                + a
                + ",percentile=\"99.9\",stat=\"ttft\"} 0.001",
            "tpot_window_outside_engine_seconds{bound=\"lo\","
                + a
                + ",percentile=\"50\",stat=\"tpot\"} 0.0",
            "tpot_window_outside_engine_seconds{bound=\"lo\","
                + a
                + ",percentile=\"50\",stat=\"ttft\"} 2.0E-4",
            "tpot_window_outside_engine_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99\",stat=\"tpot\"} -1.0E-5",
            "tpot_window_outside_engine_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99\",stat=\"ttft\"} -5.0E-4",
            "tpot_window_outside_engine_seconds{bound=\"lo\","
                + a
                + ",percentile=\"99.9\",stat=\"ttft\"} -5.0E-4"),
        lines(text, "tpot_window_outside_engine_seconds{"));
    // waiting was not published: no line
    assertEquals(
        List.of(
            "tpot_window_engine_requests{agg=\"max\"," + a + ",state=\"running\"} 3.0",
            "tpot_window_engine_requests{agg=\"mean\"," + a + ",state=\"running\"} 2.5",
            "tpot_window_engine_kv_cache_usage_ratio{agg=\"max\"," + a + "} 0.12",
            "tpot_window_engine_kv_cache_usage_ratio{agg=\"mean\"," + a + "} 0.1",
            "tpot_window_engine_prefix_cache_hit_ratio{" + a + "} 0.5"),
        List.of(
                lines(text, "tpot_window_engine_requests{"),
                lines(text, "tpot_window_engine_kv_cache_usage_ratio{"),
                lines(text, "tpot_window_engine_prefix_cache_hit_ratio{"))
            .stream()
            .flatMap(List::stream)
            .toList());
  }

  @Test
  void scrapesAddUpAndALatestWindowWithoutAnEngineShowsNoEngineGauges() throws Exception {
    WindowSummary failedOnly =
        TestWindows.withEngine(
            TestWindows.known("model-a", Map.of("concurrency", "5"), 3),
            TestWindows.failedEngine(4));
    String text =
        serve(
            TestWindows.knownWithEngine("model-a", Map.of("concurrency", "5"), 1),
            TestWindows.knownWithEngine("model-a", Map.of("concurrency", "5"), 2),
            failedOnly,
            TestWindows.known("model-b", Map.of(), 1));
    PromText m = PromText.parse(text);

    assertEquals(4.0, m.value("tpot_engine_scrapes_total", A));
    assertEquals(6.0, m.value("tpot_engine_failed_scrapes_total", A));
    Map<String, String> b = Map.of("model", "model-b");
    assertEquals(0.0, m.value("tpot_engine_scrapes_total", b), "from 0 without an engine");
    assertEquals(0.0, m.value("tpot_engine_failed_scrapes_total", b));
    // model-a's latest window only reports failed scrapes, model-b's has no engine: no gauge,
    // and no family without a sample
    assertEquals(List.of(), lines(text, "tpot_window_engine_"));
    assertEquals(false, text.contains("tpot_window_engine_"), text);
    assertEquals(false, text.contains("tpot_window_outside_engine_"), text);
  }

  @Test
  void withoutAnyEngineOnlyTheCountersAreServed() throws Exception {
    String text = serve(TestWindows.known("model-b", Map.of(), 1));

    assertEquals(
        List.of("tpot_engine_scrapes_total{model=\"model-b\"} 0.0"),
        lines(text, "tpot_engine_scrapes_total{"));
    assertEquals(List.of(), lines(text, "tpot_window_engine_"));
    assertEquals(List.of(), lines(text, "tpot_window_outside_engine_"));
  }

  @Test
  void groupedLabelsNamedAsTheEnginesOwnArePrefixed() throws Exception {
    PromText m =
        PromText.parse(
            serve(TestWindows.knownWithEngine("m", Map.of("stat", "x", "bound", "y"), 1)));

    Map<String, String> labels =
        Map.of(
            "model", "m",
            "label_stat", "x",
            "label_bound", "y",
            "stat", "tpot",
            "percentile", "99",
            "bound", "lo");
    assertEquals(-1.0e-5, m.value("tpot_window_outside_engine_seconds", labels));
  }

  @Tag("slow")
  @Test
  void passesPromtoolCheckMetrics() throws Exception {
    Promtool.assumeInstalled();
    Promtool.assertMetricsPass(
        serve(
            TestWindows.knownWithEngine("model-a", Map.of("concurrency", "5"), 1),
            TestWindows.known("model-b", Map.of(), 1)));
  }
}
