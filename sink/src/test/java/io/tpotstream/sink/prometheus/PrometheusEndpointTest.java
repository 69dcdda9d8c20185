package io.tpotstream.sink.prometheus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_36_2.Metrics;
import io.tpotstream.common.metrics.MetricsServer;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.Promtool;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

public class PrometheusEndpointTest {
  private static final Map<String, String> A = Map.of("model", "model-a", "concurrency", "5");
  private static final Map<String, String> B = Map.of("model", "model-b");
  private static final String PROTOBUF =
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;"
          + " encoding=delimited";

  /** GET /metrics from the real HTTP server, as Prometheus scrapes it (text format). */
  public static String scrape(int port) throws IOException, InterruptedException {
    return new String(get(port, "text/plain; version=0.0.4"), StandardCharsets.UTF_8);
  }

  private static byte[] get(int port, String accept) throws IOException, InterruptedException {
    HttpResponse<byte[]> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                    .header("Accept", accept)
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, response.statusCode());
    return response.body();
  }

  /**
   * TPOT 10..1000 µs, TTFT 1000..2000 µs, 5 requests of which one failed with http_429, 104 output
   * tokens; the client's worst loop lag 2.5 ms, its lag touched the 1 ms gap, the largest, for 10
   * µs only (not suspect); 4 requests reported the prefix cache: 1,000 of 4,000 prompt tokens
   * cached.
   */
  private static WindowSummary modelA(int window) {
    WindowStats stats = TestWindows.knownTpotAndTtft();
    stats.clientLag(2_500);
    stats.clientTouched(1_000, 10, 1);
    stats.promptCache(4, 4_000, 1_000);
    return TestWindows.of("model-a", Map.of("concurrency", "5"), window, stats);
  }

  private static String serve(PrometheusView view) throws Exception {
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      return scrape(endpoint.port());
    }
  }

  private static PrometheusView viewOf(List<WindowSummary> summaries) {
    PrometheusView view = new PrometheusView();
    summaries.forEach(view::add);
    return view;
  }

  @Test
  void exactLinesForAKnownWindow() throws Exception {
    String text = serve(viewOf(List.of(modelA(1))));

    List<String> lines = Arrays.asList(text.split("\n"));
    String a = "concurrency=\"5\",model=\"model-a\"";
    for (String expected :
        List.of(
            "# TYPE tpot_seconds histogram",
            // 10..500 µs are at or below 0.5 ms, all 100 at or below 1 ms
            "tpot_seconds_bucket{" + a + ",le=\"5.0E-4\"} 50",
            "tpot_seconds_bucket{" + a + ",le=\"0.001\"} 100",
            "tpot_seconds_bucket{" + a + ",le=\"+Inf\"} 100",
            "tpot_seconds_count{" + a + "} 100",
            "tpot_seconds_sum{" + a + "} 0.0505",
            "tpot_ttft_seconds_bucket{" + a + ",le=\"0.025\"} 4",
            "tpot_ttft_seconds_sum{" + a + "} 0.0057",
            "tpot_e2e_seconds_count{" + a + "} 0",
            "# TYPE tpot_requests_total counter",
            "tpot_requests_total{" + a + ",outcome=\"failed\"} 1.0",
            "tpot_requests_total{" + a + ",outcome=\"started\"} 5.0",
            "tpot_errors_total{concurrency=\"5\",error_class=\"http_429\",model=\"model-a\"} 1.0",
            "tpot_errors_total{concurrency=\"5\",error_class=\"timeout_idle\",model=\"model-a\"} 0.0",
            "tpot_output_tokens_total{" + a + "} 104.0",
            "tpot_windows_total{" + a + "} 1.0",
            "tpot_client_suspect_windows_total{" + a + "} 0.0",
            "tpot_client_touched_gaps_total{" + a + "} 1.0",
            "# TYPE tpot_prompt_cache_prompt_tokens_total counter",
            "tpot_prompt_cache_prompt_tokens_total{" + a + "} 4000.0",
            "tpot_prompt_cache_cached_tokens_total{" + a + "} 1000.0",
            "# TYPE tpot_window_tpot_seconds gauge",
            "tpot_window_tpot_seconds{" + a + ",percentile=\"50\"} 5.0E-4",
            "tpot_window_tpot_seconds{" + a + ",percentile=\"99\"} 9.9E-4",
            "tpot_window_tpot_seconds{" + a + ",percentile=\"99.9\"} 0.001",
            "tpot_window_tpot_seconds{" + a + ",percentile=\"99.99\"} 0.001",
            "tpot_window_tpot_max_seconds{" + a + "} 0.001",
            "tpot_window_ttft_seconds{" + a + ",percentile=\"50\"} 0.0012",
            "tpot_window_e2e_max_seconds{" + a + "} NaN",
            "tpot_window_error_ratio{" + a + "} 0.2",
            "tpot_window_tokens_per_second{" + a + "} 10.4",
            "# TYPE tpot_window_prompt_cache_hit_ratio gauge",
            "tpot_window_prompt_cache_hit_ratio{" + a + "} 0.25",
            "tpot_window_client_lag_max_seconds{" + a + "} 0.0025",
            "tpot_window_client_pause_max_seconds{" + a + "} NaN",
            "tpot_window_client_suspect{" + a + "} 0.0",
            // at or above p99 (990 µs): the 990 and 1000 µs gaps, one of them touched
            "tpot_window_client_touched_tail_ratio{" + a + "} 0.5",
            "tpot_window_end_timestamp_seconds{" + a + "} 1.76722562E9")) {
      assertTrue(lines.contains(expected), "missing line " + expected + " in\n" + text);
    }
    assertTrue(
        lines.stream()
            .filter(l -> l.startsWith("# TYPE "))
            .allMatch(l -> l.startsWith("# TYPE tpot_")),
        "every family in the tpot_ namespace:\n" + text);
  }

  @Test
  void countersAndBucketsAddUpAcrossWindowsAndNeverGoDown() throws Exception {
    PrometheusView view = new PrometheusView();
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      view.add(modelA(1));
      view.add(TestWindows.summary("model-b", Map.of(), 1));
      PromText first = PromText.parse(scrape(endpoint.port()));
      view.add(modelA(2));
      view.add(modelA(2)); // read twice (a replayed batch): counted once
      view.restore(modelA(0)); // an older window from the files: never counted
      WindowStats failed = new WindowStats();
      failed.started(1);
      failed.failed("timeout_first_token", 1);
      view.add(TestWindows.of("model-b", Map.of(), 2, failed));
      PromText second = PromText.parse(scrape(endpoint.port()));

      assertEquals(200.0, second.value("tpot_seconds_count", A));
      assertEquals(100.0, second.value("tpot_seconds_bucket", with(A, "le", "5.0E-4")));
      assertEquals(0.101, second.value("tpot_seconds_sum", A), 1e-12);
      assertEquals(2.0, second.value("tpot_errors_total", with(A, "error_class", "http_429")));
      assertEquals(
          1.0, second.value("tpot_errors_total", with(B, "error_class", "timeout_first_token")));
      assertEquals(6.0, second.value("tpot_requests_total", with(B, "outcome", "started")));
      assertEquals(
          200.0, second.value("tpot_seconds_count", B), "model-b's second window had none");
      assertEquals(
          TestWindows.startOf(3) / 1000.0, second.value("tpot_window_end_timestamp_seconds", A));
      assertEquals(1.0, second.value("tpot_window_error_ratio", B));
      assertEquals(8_000.0, second.value("tpot_prompt_cache_prompt_tokens_total", A));
      assertEquals(2_000.0, second.value("tpot_prompt_cache_cached_tokens_total", A));
      assertEquals(
          Double.NaN,
          second.value("tpot_window_prompt_cache_hit_ratio", B),
          "model-b's requests reported no prefix cache");
      for (Map.Entry<String, Double> before : first.byKey().entrySet()) {
        String key = before.getKey();
        if (key.startsWith("tpot_window_")) {
          continue; // gauges of the latest window
        }
        Double after = second.byKey().get(key);
        assertTrue(
            after != null && after >= before.getValue(),
            key + " went from " + before.getValue() + " to " + after);
      }
    }
  }

  @Test
  void groupByLabelsAreLabelsAndNamesPrometheusCannotTakeArePrefixed() throws Exception {
    PrometheusView view = new PrometheusView();
    view.add(TestWindows.summary("m", Map.of("concurrency", "5", "run-id", "r1", "le", "x"), 0));
    view.add(TestWindows.summary("m", Map.of("concurrency", "20", "run-id", "r1", "le", "x"), 0));
    PromText metrics = PromText.parse(serve(view));

    Map<String, String> five =
        Map.of("model", "m", "concurrency", "5", "label_run_id", "r1", "label_le", "x");
    Map<String, String> twenty = new TreeMap<>(five);
    twenty.put("concurrency", "20");
    assertEquals(200.0, metrics.value("tpot_seconds_count", five));
    assertEquals(200.0, metrics.value("tpot_seconds_count", twenty));
    assertTrue(
        metrics.samples.stream().noneMatch(s -> s.labels().containsKey("series")),
        "no folded series label");
  }

  @Tag("slow")
  @Test
  void passesPromtoolCheckMetrics() throws Exception {
    Promtool.assumeInstalled();
    PrometheusView view =
        viewOf(
            List.of(
                modelA(1),
                TestWindows.summary("model-b", Map.of(), 1),
                TestWindows.summary("model \"c\"", Map.of("run", "a\\b"), 1)));

    Promtool.assertMetricsPass(serve(view));
  }

  @Test
  void nativeHistogramWhenTheScraperAsksForProtobuf() throws Exception {
    PrometheusView view = viewOf(List.of(modelA(1)));
    byte[] body;
    try (MetricsServer endpoint = PrometheusEndpoint.start("127.0.0.1", 0, view)) {
      body = get(endpoint.port(), PROTOBUF);
    }

    Metrics.MetricFamily tpot = null;
    InputStream in = new ByteArrayInputStream(body);
    for (Metrics.MetricFamily f; (f = Metrics.MetricFamily.parseDelimitedFrom(in)) != null; ) {
      if (f.getName().equals("tpot_seconds")) {
        tpot = f;
      }
    }
    assertTrue(tpot != null, "tpot_seconds in the protobuf exposition");
    Metrics.Histogram h = tpot.getMetric(0).getHistogram();
    assertEquals(CumulativeHistogram.NATIVE_SCHEMA, h.getSchema());
    assertEquals(100, h.getSampleCount());
    // spans and deltas decoded, against each sample's bucket: the smallest i with x <= 2^(i/8)
    Map<Integer, Long> expected = new TreeMap<>();
    for (int i = 1; i <= 100; i++) {
      expected.merge((int) Math.ceil(8 * Math.log(i * 10e-6) / Math.log(2)), 1L, Long::sum);
    }
    Map<Integer, Long> decoded = new TreeMap<>();
    int index = 0;
    long count = 0;
    int delta = 0;
    for (Metrics.BucketSpan span : h.getPositiveSpanList()) {
      index += span.getOffset();
      for (int j = 0; j < span.getLength(); j++, index++) {
        count += h.getPositiveDelta(delta++);
        if (count > 0) {
          decoded.put(index, count);
        }
      }
    }
    assertEquals(expected, decoded);
    assertEquals(22 + 1, h.getBucketCount(), "the classic buckets are there too");
  }

  @Test
  void nativeBucketBoundariesBelongToTheLowerBucket() {
    assertEquals(0, CumulativeHistogram.nativeIndex(1.0));
    assertEquals(1, CumulativeHistogram.nativeIndex(1.0001));
    assertEquals(-8, CumulativeHistogram.nativeIndex(0.5));
    assertEquals(1, CumulativeHistogram.nativeIndex(Math.pow(2, 1 / 8.0)));
    assertEquals(-80, CumulativeHistogram.nativeIndex(0.0009765625)); // 2^-10
  }

  static Map<String, String> with(Map<String, String> labels, String name, String value) {
    Map<String, String> all = new TreeMap<>(labels);
    all.put(name, value);
    return all;
  }
}
