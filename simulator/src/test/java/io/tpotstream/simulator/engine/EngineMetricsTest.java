package io.tpotstream.simulator.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class EngineMetricsTest {
  private static final long MS = 1_000_000L;

  private static List<String> lines(String text, String prefix) {
    return text.lines().filter(line -> line.startsWith(prefix)).toList();
  }

  @Test
  void aDurationOnABoundCountsInThatBucketAndTheSumIsExactInSeconds() {
    EngineMetrics metrics = new EngineMetrics();
    EngineCounts counts = metrics.counts("m");
    counts.accepted(40, 32);
    counts.firstChunk(1 * MS, 40, 2);
    counts.nextChunk(10 * MS, 1);
    counts.nextChunk(10 * MS + 1, 1);
    counts.finished(FinishReason.STOP, 300 * MS, 0);

    String text = metrics.text(0.25);

    String labels = "{model_name=\"m\",engine=\"0\"";
    List<String> itl = lines(text, "vllm:inter_token_latency_seconds");
    assertEquals(19 + 1 + 2, itl.size());
    assertEquals(
        "vllm:inter_token_latency_seconds_bucket" + labels + ",le=\"0.01\"} 1.0", itl.get(0));
    assertEquals(
        "vllm:inter_token_latency_seconds_bucket" + labels + ",le=\"0.025\"} 2.0", itl.get(1));
    assertEquals(
        "vllm:inter_token_latency_seconds_bucket" + labels + ",le=\"80.0\"} 2.0", itl.get(18));
    assertEquals(
        "vllm:inter_token_latency_seconds_bucket" + labels + ",le=\"+Inf\"} 2.0", itl.get(19));
    assertEquals("vllm:inter_token_latency_seconds_count" + labels + "} 2.0", itl.get(20));
    assertEquals("vllm:inter_token_latency_seconds_sum" + labels + "} 0.020000001", itl.get(21));
    assertEquals(
        List.of(
            "vllm:time_to_first_token_seconds_bucket" + labels + ",le=\"0.001\"} 1.0",
            "vllm:time_to_first_token_seconds_sum" + labels + "} 0.001"),
        List.of(
            lines(text, "vllm:time_to_first_token_seconds_bucket").get(0),
            lines(text, "vllm:time_to_first_token_seconds_sum").get(0)));
    assertEquals(
        "vllm:e2e_request_latency_seconds_bucket" + labels + ",le=\"0.3\"} 1.0",
        lines(text, "vllm:e2e_request_latency_seconds_bucket").get(0));
    assertEquals(
        "vllm:request_queue_time_seconds_sum" + labels + "} 0.0",
        lines(text, "vllm:request_queue_time_seconds_sum").get(0));
    assertEquals(
        List.of(
            "vllm:num_requests_running" + labels + "} 0.0",
            "vllm:num_requests_waiting" + labels + "} 0.0",
            "vllm:kv_cache_usage_perc" + labels + "} 0.25",
            "vllm:prefix_cache_queries_total" + labels + "} 40.0",
            "vllm:prefix_cache_hits_total" + labels + "} 32.0",
            "vllm:prompt_tokens_total" + labels + "} 40.0",
            "vllm:generation_tokens_total" + labels + "} 4.0",
            "vllm:request_success_total" + labels + ",finished_reason=\"stop\"} 1.0",
            "vllm:request_success_total" + labels + ",finished_reason=\"length\"} 0.0",
            "vllm:request_success_total" + labels + ",finished_reason=\"abort\"} 0.0"),
        text.lines().filter(line -> !line.startsWith("#") && !line.contains("_seconds")).toList());
  }

  @Test
  void eachFamilyIsOneBlockOfEveryModelInNameOrderWithEscapedNames() {
    EngineMetrics metrics = new EngineMetrics();
    metrics.counts("z").accepted(1, null);
    metrics.counts("a\"b\\c\nd").accepted(1, null);

    String text = metrics.text(0);

    assertEquals(
        List.of(
            "# HELP vllm:num_requests_running Number of requests in model execution batches.",
            "# TYPE vllm:num_requests_running gauge",
            "vllm:num_requests_running{model_name=\"a\\\"b\\\\c\\nd\",engine=\"0\"} 1.0",
            "vllm:num_requests_running{model_name=\"z\",engine=\"0\"} 1.0",
            "# HELP vllm:num_requests_waiting Number of requests waiting to be processed."),
        text.lines().limit(5).toList());
    assertEquals(
        List.of(
            "vllm:num_requests_running",
            "vllm:num_requests_waiting",
            "vllm:kv_cache_usage_perc",
            "vllm:prefix_cache_queries_total",
            "vllm:prefix_cache_hits_total",
            "vllm:prompt_tokens_total",
            "vllm:generation_tokens_total",
            "vllm:request_success_total",
            "vllm:time_to_first_token_seconds",
            "vllm:inter_token_latency_seconds",
            "vllm:e2e_request_latency_seconds",
            "vllm:request_queue_time_seconds"),
        text.lines()
            .filter(line -> line.startsWith("# TYPE "))
            .map(line -> line.split(" ")[2])
            .toList());
    // without a prefix cache nothing is looked up
    assertTrue(text.contains("vllm:prefix_cache_queries_total{model_name=\"z\",engine=\"0\"} 0.0"));
  }

  @Test
  void anAbortedRequestStopsRunningAndIsTimedNowhere() {
    EngineMetrics metrics = new EngineMetrics();
    EngineCounts counts = metrics.counts("m");
    counts.accepted(1, null);
    counts.firstChunk(5 * MS, 1, 1);
    counts.aborted();

    String text = metrics.text(0);

    assertTrue(text.contains("vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 0.0"));
    assertTrue(
        text.contains(
            "vllm:request_success_total{model_name=\"m\",engine=\"0\",finished_reason=\"abort\"}"
                + " 1.0"));
    assertTrue(
        text.contains("vllm:e2e_request_latency_seconds_count{model_name=\"m\",engine=\"0\"} 0.0"));
  }
}
