package io.tpotstream.sink.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Series;
import io.tpotstream.common.event.ErrorClasses;
import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.Promtool;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The bounds of {@code /metrics}: label names that cannot collide, label values from events cut and
 * cleaned, a cap on series and on error classes (what they leave out counted), and counters whose
 * {@code _created} shows when they started. Each checked by scraping the real endpoint.
 */
class MetricsBoundsTest {
  private static final SloSpec SLO = SloSpec.parse("tpot_p99=1s", null);

  private static WindowSummary window(String model, Map<String, String> labels, int w) {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(2_000, 10);
    stats.started(1);
    stats.completed(1, false);
    return stats.toSummary(
        Series.name(model, labels),
        model,
        labels,
        TestWindows.startOf(w),
        TestWindows.startOf(w + 1),
        1_000,
        SLO);
  }

  private static String scrape(PrometheusView view) throws Exception {
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      return PrometheusEndpointTest.scrape(endpoint.port());
    }
  }

  private static Set<String> labelNames(PromText m, String family) {
    return m.samples.stream()
        .filter(s -> s.name().equals(family))
        .flatMap(s -> s.labels().keySet().stream())
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }

  @Test
  void groupByObjectiveWithAnSloScrapes() throws Exception {
    PrometheusView view = new PrometheusView();
    view.add(window("m", Map.of("objective", "fast"), 0));

    PromText m = PromText.parse(scrape(view));

    Map<String, String> p99 = Map.of("model", "m", "label_objective", "fast");
    assertEquals(1.0, m.value("tpot_window_slo_met", p99));
    Map<String, String> objective = new TreeMap<>(p99);
    objective.put("objective", "tpot_p99");
    assertEquals(1.0, m.value("tpot_window_slo_objective_met", objective));
  }

  @Test
  void labelsThatSanitiseToTheSameNameStayApart() throws Exception {
    PrometheusView view = new PrometheusView();
    view.add(window("m", Map.of("run-id", "1"), 0));
    view.add(window("m", Map.of("run.id", "2", "run-id", "3"), 0));
    view.add(window("m", Map.of("model", "x", "label_model", "y"), 0));

    String text = scrape(view);
    PromText m = PromText.parse(text);

    assertEquals(1.0, m.value("tpot_windows_total", Map.of("model", "m", "label_run_id", "1")));
    assertEquals(
        1.0,
        m.value(
            "tpot_windows_total",
            Map.of("model", "m", "label_run_id", "3", "label_run_id_2", "2")));
    assertEquals(
        1.0,
        m.value(
            "tpot_windows_total", Map.of("model", "m", "label_model", "y", "label_model_2", "x")));
    if (Promtool.onPath("promtool")) {
      Promtool.assertMetricsPass(text);
    }
  }

  @Test
  void longAndControlCharacterValuesAreCutWithAHashAndNeverCollide() throws Exception {
    String longModel = "m".repeat(300);
    String otherLongModel = "m".repeat(299) + "n";
    PrometheusView view = new PrometheusView();
    view.add(window(longModel, Map.of(), 0));
    view.add(window(otherLongModel, Map.of(), 0));
    view.add(window("a\nb", Map.of("concurrency", "5\u0000"), 0));

    String text = scrape(view);
    PromText m = PromText.parse(text);

    String cut = "m".repeat(100) + "~";
    assertEquals(
        1.0,
        m.value(
            "tpot_windows_total",
            Map.of("model", cut + String.format("%08x", longModel.hashCode()))));
    assertEquals(
        1.0,
        m.value(
            "tpot_windows_total",
            Map.of("model", cut + String.format("%08x", otherLongModel.hashCode()))));
    assertEquals(
        1.0,
        m.value(
            "tpot_windows_total",
            Map.of(
                "model",
                "a_b~" + String.format("%08x", "a\nb".hashCode()),
                "concurrency",
                "5_~" + String.format("%08x", "5\u0000".hashCode()))));
    if (Promtool.onPath("promtool")) {
      Promtool.assertMetricsPass(text);
    }
  }

  @Test
  void tenThousandErrorClassesFoldIntoOtherAndAreCounted() throws Exception {
    WindowStats forged = new WindowStats();
    forged.started(10_000);
    for (int i = 0; i < 10_000; i++) {
      forged.failed(String.format("c%05d", i), 1);
    }
    WindowStats next = new WindowStats();
    next.started(2);
    next.failed("c00005", 1);
    next.failed("c09999", 1);
    PrometheusView view = new PrometheusView();
    view.add(TestWindows.of("m", Map.of(), 0, forged));
    view.add(TestWindows.of("m", Map.of(), 1, next));

    PromText m = PromText.parse(scrape(view));

    long classes = m.samples.stream().filter(s -> s.name().equals("tpot_errors_total")).count();
    assertEquals(ErrorClasses.KNOWN.size() + SeriesMetrics.MAX_EXTRA_ERROR_CLASSES + 1, classes);
    Map<String, String> model = Map.of("model", "m");
    assertEquals(2.0, m.value("tpot_errors_total", Map.of("model", "m", "error_class", "c00005")));
    assertEquals(1.0, m.value("tpot_errors_total", Map.of("model", "m", "error_class", "c00019")));
    assertEquals(
        9_981.0, m.value("tpot_errors_total", Map.of("model", "m", "error_class", "other")));
    assertEquals(9_981.0, m.value("tpot_folded_errors_total", model));
  }

  @Test
  void seriesPastTheLimitAreLeftOutAndTheirWindowsCounted() throws Exception {
    PrometheusView view = new PrometheusView(2);
    for (int w = 0; w < 3; w++) {
      for (String model : new String[] {"a", "b", "c", "d"}) {
        view.add(window(model, Map.of(), w));
      }
    }

    String text = scrape(view);
    PromText m = PromText.parse(text);

    assertEquals(Set.of("model"), labelNames(m, "tpot_windows_total"));
    assertEquals(
        Set.of("a", "b"),
        m.samples.stream()
            .filter(s -> s.name().equals("tpot_windows_total"))
            .map(s -> s.labels().get("model"))
            .collect(Collectors.toSet()));
    assertEquals(6.0, m.value("tpot_dropped_windows_total", Map.of("reason", "series_limit")));
    assertEquals(0.0, m.value("tpot_dropped_windows_total", Map.of("reason", "label_collision")));
    if (Promtool.onPath("promtool")) {
      Promtool.assertMetricsPass(text);
    }
  }

  @Test
  void countersAndHistogramsCarryTheirCreatedTimestamp() throws Exception {
    long before = System.currentTimeMillis();
    PrometheusView view = new PrometheusView();
    view.add(window("m", Map.of(), 0));
    long after = System.currentTimeMillis();

    String openMetrics;
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics"))
                      .header("Accept", "application/openmetrics-text; version=1.0.0")
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      openMetrics = response.body();
    }

    for (String created :
        new String[] {
          "tpot_windows_created{model=\"m\"} ",
          "tpot_requests_created{model=\"m\",outcome=\"completed\"} ",
          "tpot_seconds_created{model=\"m\"} "
        }) {
      String line =
          openMetrics
              .lines()
              .filter(l -> l.startsWith(created))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no " + created + " in\n" + openMetrics));
      double seconds = Double.parseDouble(line.substring(created.length()));
      assertTrue(
          seconds * 1000 >= before - 1 && seconds * 1000 <= after + 1, line + " in " + before);
    }
  }

  @Tag("slow")
  @Test
  void everyBoundedScrapePassesPromtool() throws Exception {
    Promtool.assumeInstalled();
    PrometheusView view = new PrometheusView(3);
    view.add(window("m", Map.of("objective", "fast", "run-id", "1", "run.id", "2"), 0));
    view.add(window("x".repeat(500), Map.of(), 0));
    view.add(window("y", Map.of(), 0));
    view.add(window("z", Map.of(), 0));
    Promtool.assertMetricsPass(scrape(view));
  }
}
