package io.tpotstream.producer.testing;

import java.util.Locale;

/**
 * Exposition text as vLLM's {@code /metrics} writes it (prometheus_client, text format 0.0.4: HELP
 * and TYPE lines, an {@code engine} label beside {@code model_name}, {@code _created} samples,
 * families tpot does not read), built from known cumulative counts.
 */
public final class VllmBodies {
  public static final double[] TPOT_LE = {0.01, 0.025, 0.05};
  public static final double[] TTFT_LE = {0.04, 0.06, 0.08, 0.1};
  public static final double[] E2E_LE = {0.3, 0.5, 0.8, 1.0, 1.5};
  public static final double[] QUEUE_LE = {0.001, 0.01};

  private final StringBuilder text = new StringBuilder();

  /** An empty body, to build line by line. */
  public VllmBodies() {}

  /**
   * A whole body for {@code model}, every count {@code k} times a base: inter-token latency {@code
   * [3, 123, 127, +Inf 127]}·k, TTFT {@code [0, 1, 2, 2, 2]}·k, E2E {@code [0, 0, 0, 1, 2, 2]}·k,
   * queue {@code [2, 2, 2]}·k; running 3, waiting 0, KV cache 0.12; prefix queries 2048·k, hits
   * 1024·k.
   */
  public static VllmBodies of(String model, long k) {
    return new VllmBodies()
        .other()
        .histogram("vllm:inter_token_latency_seconds", model, TPOT_LE, times(k, 3, 123, 127, 127))
        .histogram("vllm:time_to_first_token_seconds", model, TTFT_LE, times(k, 0, 1, 2, 2, 2))
        .histogram("vllm:e2e_request_latency_seconds", model, E2E_LE, times(k, 0, 0, 0, 1, 2, 2))
        .histogram("vllm:request_queue_time_seconds", model, QUEUE_LE, times(k, 2, 2, 2))
        .gauge("vllm:num_requests_running", model, 3)
        .gauge("vllm:num_requests_waiting", model, 0)
        .gauge("vllm:kv_cache_usage_perc", model, 0.12)
        .counter("vllm:prefix_cache_queries", model, 2048 * k)
        .counter("vllm:prefix_cache_hits", model, 1024 * k);
  }

  public static long[] times(long k, long... counts) {
    long[] out = new long[counts.length];
    for (int i = 0; i < counts.length; i++) {
      out[i] = counts[i] * k;
    }
    return out;
  }

  /** Families tpot never reads. */
  public VllmBodies other() {
    text.append("# HELP python_gc_objects_collected_total Objects collected during gc\n")
        .append("# TYPE python_gc_objects_collected_total counter\n")
        .append("python_gc_objects_collected_total{generation=\"0\"} 12345.0\n")
        .append("# HELP vllm:num_preemptions_total Cumulative number of preemption.\n")
        .append("# TYPE vllm:num_preemptions_total counter\n")
        .append("vllm:num_preemptions_total{engine=\"0\",model_name=\"x\"} 0.0\n");
    return this;
  }

  /** A histogram's lines: one bucket per bound, then +Inf, {@code _count} and {@code _sum}. */
  public VllmBodies histogram(String name, String model, double[] le, long[] cumulative) {
    text.append("# HELP ").append(name).append(" A histogram.\n");
    text.append("# TYPE ").append(name).append(" histogram\n");
    for (int i = 0; i <= le.length; i++) {
      text.append(name)
          .append("_bucket{engine=\"0\",le=\"")
          .append(i < le.length ? Double.toString(le[i]) : "+Inf")
          .append("\",model_name=\"")
          .append(model)
          .append("\"} ")
          .append(cumulative[i])
          .append(".0\n");
    }
    String labels = "{engine=\"0\",model_name=\"" + model + "\"} ";
    text.append(name).append("_count").append(labels).append(cumulative[le.length]).append(".0\n");
    text.append(name).append("_sum").append(labels).append("1.25\n");
    text.append(name).append("_created").append(labels).append("1.765e+09\n");
    return this;
  }

  public VllmBodies gauge(String name, String model, double value) {
    text.append("# TYPE ").append(name).append(" gauge\n");
    text.append(name)
        .append("{engine=\"0\",model_name=\"")
        .append(model)
        .append("\"} ")
        .append(String.format(Locale.ROOT, "%s", value))
        .append('\n');
    return this;
  }

  public VllmBodies counter(String name, String model, long value) {
    text.append("# TYPE ").append(name).append(" counter\n");
    String labels = "{engine=\"0\",model_name=\"" + model + "\"} ";
    text.append(name).append("_total").append(labels).append(value).append(".0\n");
    text.append(name).append("_created").append(labels).append("1.765e+09\n");
    return this;
  }

  /** Any other line, as written. */
  public VllmBodies line(String line) {
    text.append(line).append('\n');
    return this;
  }

  public String text() {
    return text.toString();
  }
}
