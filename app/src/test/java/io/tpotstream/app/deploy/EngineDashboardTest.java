package io.tpotstream.app.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.Records;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.prometheus.PrometheusEndpoint;
import io.tpotstream.sink.prometheus.PrometheusView;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.Promtool;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's engine panels and the engine's alert rule against a real sink's {@code /metrics}
 * fed window summaries that carry an engine section of known values ({@link MonitoringPipelineTest}
 * sees the same families served live, from the simulator's {@code /metrics}, without knowing their
 * values): every {@code tpot_} name they query is served, and Prometheus's own query engine ({@code
 * promtool test rules}, the scrape held as input series) answers each engine panel's queries with
 * the sink's values and fires {@code TpotTailAddedOutsideEngine} on them.
 */
@Tag("slow")
class EngineDashboardTest {
  private static final long START_MS = 1_767_225_600_000L;
  private static final String A = "model=\"model-a\",concurrency=\"2\"";
  private static final String B = "model=\"model-b\",concurrency=\"2\"";

  @TempDir Path dir;

  /**
   * TPOT 1 ms ×90 and 40 ms ×10 (p50 1.000 ms; p99 and p99.9 40.031 ms, HdrHistogram's value), TTFT
   * 2 ms ×4 (2.000 ms); with {@code engine} as its engine section.
   */
  private static WindowSummary window(String model, EngineView engine) {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(1_000, 90);
    stats.tpot.recordMicros(40_000, 10);
    stats.ttft.recordMicros(2_000, 4);
    stats.started(4);
    stats.completed(4, false);
    WindowSummary s =
        stats.toSummary(
            model + "{concurrency=2}",
            model,
            Map.of("concurrency", "2"),
            START_MS,
            START_MS + 10_000);
    assertEquals(new BigDecimal("40.031"), s.tpot().p99Ms());
    return Records.with(s, "engine", engine);
  }

  /**
   * The engine saw TPOT p99 in its bucket (5, 10] ms and p99.9 in (10, 25], TTFT in (1, 2.5]:
   * 30.031 to 35.031 ms of the client's TPOT p99 is outside the engine.
   */
  private static EngineView engine() {
    EngineView.Interval ttft = interval("1.000", "2.500");
    EngineView.Latency ttftLatency = new EngineView.Latency(4, ttft, ttft, ttft, ttft);
    EngineView.Interval e2e = interval("50.000", "100.000");
    return new EngineView(
        2,
        0,
        null,
        0,
        new EngineView.Latency(
            100,
            interval("0.500", "1.000"),
            interval("1.000", "2.500"),
            interval("5.000", "10.000"),
            interval("10.000", "25.000")),
        ttftLatency,
        new EngineView.Latency(4, e2e, e2e, e2e, e2e),
        null,
        new EngineView.Gauge(2, new BigDecimal("4"), new BigDecimal("3.5")),
        new EngineView.Gauge(2, new BigDecimal("1"), new BigDecimal("0.5")),
        new EngineView.Gauge(2, new BigDecimal("0.5"), new BigDecimal("0.25")),
        new BigDecimal("0.7500"),
        new EngineView.Outside(
            new EngineView.Added(
                interval("0.000", "0.500"),
                interval("30.031", "35.031"),
                interval("15.031", "30.031")),
            new EngineView.Added(
                interval("-0.500", "1.000"),
                interval("-0.500", "1.000"),
                interval("-0.500", "1.000"))));
  }

  private static EngineView.Interval interval(String loMs, String hiMs) {
    return new EngineView.Interval(new BigDecimal(loMs), new BigDecimal(hiMs));
  }

  /**
   * What each query of the engine panels returns, by panel title and refId: the samples as promtool
   * writes its expectations (labels, value).
   */
  private static Map<String, List<String>> expected() {
    Map<String, List<String>> e = new LinkedHashMap<>();
    String outside = "tpot_window_outside_engine_seconds";
    String engine = "tpot_window_engine_latency_seconds";
    String where = "Where the tail comes from: client minus engine";
    e.put(
        where + " A",
        List.of(
            sample(outside, A + ",stat=\"tpot\",percentile=\"99\",bound=\"lo\"", "0.030031"),
            sample(outside, A + ",stat=\"tpot\",percentile=\"99\",bound=\"hi\"", "0.035031")));
    e.put(
        where + " B",
        List.of(
            sample(outside, A + ",stat=\"ttft\",percentile=\"99\",bound=\"lo\"", "-0.0005"),
            sample(outside, A + ",stat=\"ttft\",percentile=\"99\",bound=\"hi\"", "0.001")));
    String versus = "Engine vs client: TPOT and TTFT p99";
    e.put(
        versus + " A",
        List.of(
            sample("tpot_window_tpot_seconds", A + ",percentile=\"99\"", "0.040031"),
            sample("tpot_window_tpot_seconds", B + ",percentile=\"99\"", "0.040031")));
    e.put(
        versus + " B",
        List.of(
            sample(engine, A + ",stat=\"tpot\",percentile=\"99\",bound=\"lo\"", "0.005"),
            sample(engine, A + ",stat=\"tpot\",percentile=\"99\",bound=\"hi\"", "0.01")));
    e.put(
        versus + " C",
        List.of(
            sample("tpot_window_ttft_seconds", A + ",percentile=\"99\"", "0.002"),
            sample("tpot_window_ttft_seconds", B + ",percentile=\"99\"", "0.002")));
    e.put(
        versus + " D",
        List.of(
            sample(engine, A + ",stat=\"ttft\",percentile=\"99\",bound=\"lo\"", "0.001"),
            sample(engine, A + ",stat=\"ttft\",percentile=\"99\",bound=\"hi\"", "0.0025")));
    String load = "Engine load: requests running and waiting, failed scrapes";
    String requests = "tpot_window_engine_requests";
    e.put(
        load + " A",
        List.of(
            sample(requests, A + ",state=\"running\",agg=\"max\"", "4"),
            sample(requests, A + ",state=\"running\",agg=\"mean\"", "3.5"),
            sample(requests, A + ",state=\"waiting\",agg=\"max\"", "1"),
            sample(requests, A + ",state=\"waiting\",agg=\"mean\"", "0.5")));
    // the scrape is held unchanged: no failed scrape in any minute, for either model
    e.put(
        load + " B",
        List.of(sample(null, "model=\"model-a\"", "0"), sample(null, "model=\"model-b\"", "0")));
    String caches = "Engine caches: KV cache usage and prefix-cache hit ratio";
    e.put(
        caches + " A",
        List.of(
            sample("tpot_window_engine_kv_cache_usage_ratio", A + ",agg=\"max\"", "0.5"),
            sample("tpot_window_engine_kv_cache_usage_ratio", A + ",agg=\"mean\"", "0.25")));
    e.put(caches + " B", List.of(sample("tpot_window_engine_prefix_cache_hit_ratio", A, "0.75")));
    return e;
  }

  /** One expected sample of promtool's {@code exp_samples} (no name: an aggregation's result). */
  private static String sample(String name, String labels, String value) {
    String all = name == null ? labels : "__name__=\"" + name + "\"," + labels;
    return "          - labels: '{" + all + "}'\n            value: " + value + "\n";
  }

  @Test
  void theEnginePanelsAreAnsweredWithTheSinksValuesAndTheAlertFires() throws Exception {
    Promtool.assumeInstalled();
    PrometheusView view = new PrometheusView();
    view.add(window("model-a", engine()));
    view.add(window("model-b", null));
    PromText served = PromText.parse(scrape(view));

    // every tpot_ name of the engine panels, and each engine name of the alert rules, is served
    Map<String, JsonNode> panels = enginePanels();
    Set<String> queried = new TreeSet<>();
    for (JsonNode panel : panels.values()) {
      for (JsonNode target : panel.get("targets")) {
        queried.addAll(DeployFiles.tpotNames(target.get("expr").asText()));
      }
    }
    for (String name :
        DeployFiles.tpotNames(
            Files.readString(DeployFiles.PROMETHEUS.resolve("tpot-alerts.yml")))) {
      if (DeployFiles.servedWithAnEngineOnly(name)) {
        queried.add(name);
      }
    }
    Set<String> names =
        served.samples.stream().map(PromText.Sample::name).collect(Collectors.toSet());
    Set<String> missing = new TreeSet<>(queried);
    missing.removeAll(names);
    assertEquals(Set.of(), missing, "queried by the engine panels or the alerts but not served");

    // Prometheus's query engine over the scrape, held for 10 minutes
    StringBuilder test = new StringBuilder();
    test.append("rule_files:\n  - ")
        .append(DeployFiles.PROMETHEUS.resolve("tpot-alerts.yml").toAbsolutePath())
        .append("\nevaluation_interval: 1m\ntests:\n  - interval: 1m\n    input_series:\n");
    for (PromText.Sample s : served.samples) {
      if (!Double.isNaN(s.value())) {
        test.append("      - series: '")
            .append(s.name())
            .append(
                s.labels().entrySet().stream()
                    .map(l -> l.getKey() + "=\"" + l.getValue() + "\"")
                    .collect(Collectors.joining(",", "{", "}")))
            .append("'\n        values: '")
            .append(s.value())
            .append("x10'\n");
      }
    }
    test.append("    promql_expr_test:\n");
    Map<String, List<String>> expected = expected();
    List<String> asked = new ArrayList<>();
    panels.forEach(
        (title, panel) -> {
          for (JsonNode target : panel.get("targets")) {
            String key = title + " " + target.get("refId").asText();
            asked.add(key);
            test.append("      - expr: '")
                .append(DeployFiles.asPromQl(target.get("expr").asText()).replace("'", "''"))
                .append("'\n        eval_time: 5m\n        exp_samples:\n");
            expected.getOrDefault(key, List.of()).forEach(test::append);
          }
        });
    assertEquals(List.copyOf(expected.keySet()), asked, "a query of an engine panel untested");
    test.append(
        """
            alert_rule_test:
              - eval_time: 6m
                alertname: TpotTailAddedOutsideEngine
                exp_alerts:
                  - exp_labels:
                      severity: warning
                      model: model-a
                      concurrency: "2"
                      stat: tpot
                      percentile: "99"
                      bound: lo
                    exp_annotations:
                      summary: "More than 20 ms of the TPOT P99 of model-a is added outside the engine"
                      description: "For 5 minutes the client's TPOT P99 has been at least 30.03ms above\
         the top of the engine's own P99 bucket (a lower bound: the engine's histogram is coarse) in\
         the latest window of map[__name__:tpot_window_outside_engine_seconds bound:lo concurrency:2\
         model:model-a percentile:99 stat:tpot]. The engine did not see that time: check what lies\
         between it and the client, a gateway or proxy buffering the stream, the network, the\
         client's own lag (tpot_window_client_lag_max_seconds)."
        """);
    Path file = dir.resolve("engine-panels.test.yml");
    Files.writeString(file, test);
    String output = Promtool.run(null, "test", "rules", file.toString());
    assertTrue(output.contains("SUCCESS"), output + "\n" + test);
  }

  /** The dashboard's panels that show the engine, by title, in dashboard order. */
  private static Map<String, JsonNode> enginePanels() throws Exception {
    JsonNode dashboard = Json.MAPPER.readTree(Files.readString(DeployFiles.DASHBOARD));
    Map<String, JsonNode> panels = new LinkedHashMap<>();
    for (JsonNode panel : dashboard.get("panels")) {
      if (panel.get("title").asText().contains("ngine")) {
        panels.put(panel.get("title").asText(), panel);
      }
    }
    assertEquals(4, panels.size(), "engine panels: " + panels.keySet());
    return panels;
  }

  private static String scrape(PrometheusView view) throws Exception {
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, response.statusCode());
      return response.body();
    }
  }
}
