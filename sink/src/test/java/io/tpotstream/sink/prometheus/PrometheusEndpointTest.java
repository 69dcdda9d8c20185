package io.tpotstream.sink.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.TestWindows;
import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

public class PrometheusEndpointTest {
  private static final Map<String, String> A =
      Map.of("series", "model-a{concurrency=5}", "model", "model-a");
  private static final Map<String, String> B = Map.of("series", "model-b", "model", "model-b");

  /** GET /metrics from the real HTTP server, as Prometheus would scrape it. */
  public static String scrape(int port) throws IOException, InterruptedException {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode());
    return response.body();
  }

  /** TPOT 10..1000 µs, TTFT 1000..2000 µs, 5 requests of which one failed with http_429. */
  private static WindowSummary modelA(int window) {
    WindowStats stats = new WindowStats();
    for (int i = 1; i <= 100; i++) {
      stats.tpot.recordMicros(i * 10L);
    }
    for (long micros : new long[] {1000, 1200, 1500, 2000}) {
      stats.ttft.recordMicros(micros);
    }
    stats.started(5);
    stats.completed(4, false);
    stats.failed("http_429", 1);
    stats.outputTokens(104);
    return TestWindows.of("model-a", Map.of("concurrency", "5"), window, stats);
  }

  private static String serve(List<WindowSummary> summaries) throws Exception {
    LatestWindows latest = new LatestWindows();
    summaries.forEach(latest::update);
    try (PrometheusEndpoint endpoint = PrometheusEndpoint.start("127.0.0.1", 0, latest)) {
      return scrape(endpoint.port());
    }
  }

  @Test
  void showsTheLatestWindowPerSeriesInSecondsEqualToTheSummary() throws Exception {
    WindowSummary a = modelA(3);
    WindowSummary b = TestWindows.summary("model-b", Map.of(), 3);
    PromText metrics =
        PromText.parse(
            serve(List.of(modelA(1), b, a, TestWindows.summary("model-b", Map.of(), 2))));

    assertEquals("summary", metrics.types.get("tpot_seconds"));
    assertEquals("summary", metrics.types.get("ttft_seconds"));
    assertEquals("gauge", metrics.types.get("tpot_max_seconds"));
    assertEquals("gauge", metrics.types.get("ttft_max_seconds"));
    assertEquals("gauge", metrics.types.get("tpot_window_requests"));
    for (WindowSummary w : List.of(a, b)) {
      Map<String, String> labels = w == a ? A : B;
      assertLatency(metrics, "tpot", labels, w.tpot());
      assertLatency(metrics, "ttft", labels, w.ttft());
      assertEquals(
          w.requests().started(),
          metrics.value("tpot_window_requests", with(labels, "outcome", "started")));
      assertEquals(
          w.requests().completed(),
          metrics.value("tpot_window_requests", with(labels, "outcome", "completed")));
      assertEquals(
          w.requests().failed(),
          metrics.value("tpot_window_requests", with(labels, "outcome", "failed")));
      assertEquals(
          1.0, metrics.value("tpot_window_errors", with(labels, "error_class", "http_429")));
      assertEquals(
          w.requests().errorRate().doubleValue(), metrics.value("tpot_window_error_ratio", labels));
      assertEquals(
          w.windowEndMs() / 1000.0, metrics.value("tpot_window_end_timestamp_seconds", labels));
      assertEquals(w.outputTokens(), metrics.value("tpot_window_output_tokens", labels));
    }
    assertEquals(1767225640.0, metrics.value("tpot_window_end_timestamp_seconds", A));
  }

  @Test
  void exactLinesForAKnownWindow() throws Exception {
    String text = serve(List.of(modelA(1)));

    List<String> lines = Arrays.asList(text.split("\n"));
    String a = "model=\"model-a\",series=\"model-a{concurrency=5}\"";
    for (String expected :
        List.of(
            "# TYPE tpot_seconds summary",
            "tpot_seconds{" + a + ",quantile=\"0.5\"} 5.0E-4",
            "tpot_seconds{" + a + ",quantile=\"0.9\"} 9.0E-4",
            "tpot_seconds{" + a + ",quantile=\"0.99\"} 9.9E-4",
            "tpot_seconds{" + a + ",quantile=\"0.999\"} 0.001",
            "tpot_seconds{" + a + ",quantile=\"0.9999\"} 0.001",
            "tpot_seconds_count{" + a + "} 100",
            "tpot_seconds_sum{" + a + "} 0.0505",
            "tpot_max_seconds{" + a + "} 0.001",
            "ttft_seconds{" + a + ",quantile=\"0.5\"} 0.0012",
            "ttft_seconds{" + a + ",quantile=\"0.99\"} 0.002",
            "ttft_seconds_count{" + a + "} 4",
            "ttft_seconds_sum{" + a + "} 0.0057",
            "# TYPE tpot_window_requests gauge",
            "tpot_window_requests{model=\"model-a\",outcome=\"failed\",series=\"model-a{concurrency=5}\"} 1.0",
            "tpot_window_errors{error_class=\"http_429\"," + a + "} 1.0",
            "tpot_window_error_ratio{" + a + "} 0.2",
            "tpot_window_end_timestamp_seconds{" + a + "} 1.76722562E9")) {
      assertTrue(lines.contains(expected), "missing line " + expected + " in\n" + text);
    }
  }

  @Test
  void aWindowWithoutSamplesShowsNanQuantilesAndCountZero() throws Exception {
    WindowStats stats = new WindowStats();
    stats.started(1);
    stats.failed("timeout_first_token", 1);
    PromText metrics =
        PromText.parse(serve(List.of(TestWindows.of("model-b", Map.of(), 0, stats))));

    assertEquals(0.0, metrics.value("tpot_seconds_count", B));
    assertTrue(Double.isNaN(metrics.value("tpot_seconds", with(B, "quantile", "0.99"))));
    assertTrue(Double.isNaN(metrics.value("tpot_max_seconds", B)));
    assertEquals(1.0, metrics.value("tpot_window_error_ratio", B));
  }

  @Test
  void passesPromtoolCheckMetrics() throws Exception {
    assumeTrue(
        onPath("promtool"),
        "promtool not found: install Debian's prometheus package to run this check");
    String text =
        serve(
            List.of(
                modelA(1),
                TestWindows.summary("model-b", Map.of(), 1),
                TestWindows.summary("model \"c\"", Map.of("run", "a\\b"), 1)));

    Process promtool =
        new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
    promtool.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    promtool.getOutputStream().close();
    String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(promtool.waitFor(30, TimeUnit.SECONDS));
    assertEquals(0, promtool.exitValue(), "promtool check metrics:\n" + output + "\n" + text);
    assertEquals("", output.trim());
  }

  static void assertLatency(
      PromText metrics, String name, Map<String, String> labels, LatencySummary s) {
    String[] quantiles = {"0.5", "0.9", "0.99", "0.999", "0.9999"};
    BigDecimal[] values = {s.p50Ms(), s.p90Ms(), s.p99Ms(), s.p999Ms(), s.p9999Ms()};
    for (int i = 0; i < quantiles.length; i++) {
      assertEquals(
          seconds(values[i]),
          metrics.value(name + "_seconds", with(labels, "quantile", quantiles[i])),
          name + " " + quantiles[i]);
    }
    assertEquals((double) s.count(), metrics.value(name + "_seconds_count", labels));
    assertEquals(
        seconds(s.meanMs().multiply(BigDecimal.valueOf(s.count()))),
        metrics.value(name + "_seconds_sum", labels));
    assertEquals(seconds(s.maxMs()), metrics.value(name + "_max_seconds", labels));
  }

  static Map<String, String> with(Map<String, String> labels, String name, String value) {
    Map<String, String> all = new java.util.TreeMap<>(labels);
    all.put(name, value);
    return all;
  }

  private static double seconds(BigDecimal ms) {
    return ms.movePointLeft(3).doubleValue();
  }

  public static boolean onPath(String command) {
    return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .anyMatch(dir -> new File(dir, command).canExecute());
  }
}
