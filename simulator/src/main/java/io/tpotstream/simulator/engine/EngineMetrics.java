package io.tpotstream.simulator.engine;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The engine's own view, as vLLM (v1, 0.10 and 0.11) publishes it on {@code GET /metrics}: per
 * model that has served a request, labelled {@code model_name} and {@code engine="0"}, the
 * histograms of TTFT, inter-token latency, end-to-end latency and queue time with vLLM's own bucket
 * bounds, the running and waiting gauges, the KV-cache usage, and the prefix-cache, token and
 * request counters. Counted since the simulator started (never reset, as an engine's counters),
 * into atomics on the event loops ({@link EngineCounts}); the text is made only when scraped.
 */
public final class EngineMetrics {
  /** The content type of {@link #text}: Prometheus' text format 0.0.4. */
  public static final String CONTENT_TYPE = Exposition.CONTENT_TYPE;

  private final Map<String, EngineCounts> models = new ConcurrentHashMap<>();

  /** The series of {@code model}, made on first use. */
  public EngineCounts counts(String model) {
    return models.computeIfAbsent(model, m -> new EngineCounts());
  }

  /**
   * The exposition text: each family in vLLM's order, in it each model in name order; {@code
   * kvCacheUsage} (0 to 1) is the share of the prefix cache's blocks held, the same for every model
   * (they share one cache).
   */
  public String text(double kvCacheUsage) {
    Scrape scrape = new Scrape(new TreeMap<>(models));
    // the simulator has no queue: a request runs from its acceptance, its TTFT wait included
    scrape.gauge(
        "vllm:num_requests_running",
        "Number of requests in model execution batches.",
        counts -> counts.running.get());
    scrape.gauge(
        "vllm:num_requests_waiting", "Number of requests waiting to be processed.", counts -> 0);
    scrape.ratio(
        "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", kvCacheUsage);
    scrape.counter(
        "vllm:prefix_cache_queries_total",
        "Prefix cache queries, in terms of number of queried tokens.",
        counts -> counts.prefixCacheQueries.get());
    scrape.counter(
        "vllm:prefix_cache_hits_total",
        "Prefix cache hits, in terms of number of cached tokens.",
        counts -> counts.prefixCacheHits.get());
    scrape.counter(
        "vllm:prompt_tokens_total",
        "Number of prefill tokens processed.",
        counts -> counts.promptTokens.get());
    scrape.counter(
        "vllm:generation_tokens_total",
        "Number of generation tokens processed.",
        counts -> counts.generationTokens.get());
    scrape.requestSuccess();
    scrape.histogram(
        "vllm:time_to_first_token_seconds",
        "Histogram of time to first token in seconds.",
        counts -> counts.ttft);
    scrape.histogram(
        "vllm:inter_token_latency_seconds",
        "Histogram of inter-token latency in seconds.",
        counts -> counts.interTokenLatency);
    scrape.histogram(
        "vllm:e2e_request_latency_seconds",
        "Histogram of e2e request latency in seconds.",
        counts -> counts.e2eLatency);
    scrape.histogram(
        "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.",
        counts -> counts.queueTime);
    return scrape.out.toString();
  }

  /** One scrape's text, written family by family over the models it found. */
  private static final class Scrape {
    final Map<String, EngineCounts> models;
    final Map<String, String> labels = new TreeMap<>();
    final StringBuilder out;

    Scrape(Map<String, EngineCounts> models) {
      this.models = models;
      models.forEach(
          (model, counts) ->
              labels.put(
                  model,
                  Exposition.label("model_name", model) + "," + Exposition.label("engine", "0")));
      this.out = new StringBuilder(4096 + models.size() * 12_288);
    }

    void gauge(String name, String help, ToLongFunction<EngineCounts> value) {
      Exposition.family(out, name, "gauge", help);
      models.forEach((model, counts) -> sample(name, labels.get(model), value.applyAsLong(counts)));
    }

    void ratio(String name, String help, double value) {
      Exposition.family(out, name, "gauge", help);
      models.forEach(
          (model, counts) -> {
            out.append(name).append('{').append(labels.get(model)).append("} ");
            Exposition.ratio(out, value).append('\n');
          });
    }

    void counter(String name, String help, ToLongFunction<EngineCounts> value) {
      Exposition.family(out, name, "counter", help);
      models.forEach((model, counts) -> sample(name, labels.get(model), value.applyAsLong(counts)));
    }

    /** {@code vllm:request_success_total}, one series per model and finish reason. */
    void requestSuccess() {
      String name = "vllm:request_success_total";
      Exposition.family(out, name, "counter", "Count of successfully processed requests.");
      models.forEach(
          (model, counts) -> {
            for (FinishReason reason : FinishReason.values()) {
              String series =
                  labels.get(model) + "," + Exposition.label("finished_reason", reason.label());
              sample(name, series, counts.finished.get(reason.ordinal()));
            }
          });
    }

    void histogram(String name, String help, Function<EngineCounts, FixedBuckets> histogram) {
      Exposition.family(out, name, "histogram", help);
      models.forEach(
          (model, counts) -> histogram.apply(counts).write(out, name, labels.get(model)));
    }

    private void sample(String name, String series, long value) {
      out.append(name).append('{').append(series).append("} ");
      Exposition.count(out, value).append('\n');
    }
  }
}
