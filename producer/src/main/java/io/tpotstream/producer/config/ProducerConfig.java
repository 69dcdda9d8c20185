package io.tpotstream.producer.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Everything a producer run needs, validated (see {@link ConfigLoader} and the README for each
 * key). The API key lives in {@link ApiKey}, whose printout is masked.
 *
 * @param apiBase the API root, no trailing slash (e.g. {@code https://api.openai.com/v1}), with the
 *     query string of {@code base_url} when it has one (kept on every request)
 * @param concurrency closed loop: the number of workers; open loop: the cap on requests in flight,
 *     or null for no cap
 * @param totalRequests requests per model when {@code duration} is null
 * @param maxTokens {@code max_tokens} sent with each request, or null to leave it out
 * @param rate open-loop requests per second over all models, or null for a closed loop
 * @param duration how long to run (replaces {@code totalRequests}), {@link Durations#FOREVER}, or
 *     null
 * @param seed seed of the Poisson arrival gaps
 * @param labels labels on every event, {@code concurrency} included
 * @param extraBody merged into each request body (null values remove keys)
 * @param stopGrace how long in-flight requests may finish after a stop before they are cancelled
 * @param warmup the requests run first and left out of every statistic
 */
public record ProducerConfig(
    URI apiBase,
    ApiKind api,
    ApiKey apiKey,
    List<String> models,
    Integer concurrency,
    int totalRequests,
    Integer maxTokens,
    Prompts prompts,
    Timeouts timeouts,
    Double rate,
    Arrival arrival,
    long seed,
    Duration duration,
    SortedMap<String, String> labels,
    boolean includeUsage,
    boolean continuousUsage,
    Map<String, String> headers,
    ObjectNode extraBody,
    String runId,
    Duration stopGrace,
    ProxySettings proxy,
    String anthropicVersion,
    Warmup warmup) {

  /** True for an open-loop run (requests sent at {@code rate}, not as workers free up). */
  public boolean openLoop() {
    return rate != null;
  }

  /** The streaming endpoint: {@code /chat/completions} or {@code /messages} under the API base. */
  public URI streamUrl() {
    return endpoint(api == ApiKind.ANTHROPIC ? "/messages" : "/chat/completions");
  }

  /** {@code GET} here lists the models. */
  public URI modelsUrl() {
    return endpoint("/models");
  }

  /** {@code path} under the API base, before the base's query string. */
  private URI endpoint(String path) {
    String base = apiBase.toString();
    int query = base.indexOf('?');
    return URI.create(
        query < 0 ? base + path : base.substring(0, query) + path + base.substring(query));
  }

  /** Requests in the whole run, or -1 when the run is bounded by time. */
  public long plannedRequests() {
    return duration == null ? (long) totalRequests * models.size() : -1;
  }

  /** HTTP connections to keep: the concurrency, or a generous pool for an uncapped open loop. */
  public int poolSize() {
    return concurrency != null ? concurrency : 1000;
  }
}
