package io.tpotstream.producer.config;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.tpotstream.common.Records;
import io.tpotstream.common.secret.Secrets;
import io.tpotstream.producer.engine.EngineSettings;
import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.traffic.RateSchedule;
import io.tpotstream.producer.traffic.Sweep;
import io.tpotstream.producer.traffic.TraceSchedule;
import io.tpotstream.producer.workload.Traffic;
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
 * @param duration how long to run (replaces {@code totalRequests}), {@link
 *     ConfigDurations#FOREVER}, or null
 * @param seed seed of the Poisson arrival gaps
 * @param labels labels on every event, {@code concurrency} included
 * @param ignoreEos sends {@code min_tokens} equal to {@code max_tokens} and {@code ignore_eos}
 *     (vLLM, SGLang: the server streams exactly the length asked); OpenAI's API only
 * @param extraBody merged into each request body (null values remove keys)
 * @param stopGrace how long in-flight requests may finish after a stop before they are cancelled
 * @param traffic the conversations sent, the rate schedule and the sweep (docs/producer.md,
 *     "Traffic")
 * @param warmup the requests run first and left out of every statistic
 * @param tls how the endpoint's certificate is checked, and the client certificate for mutual TLS
 * @param secrets every secret this config holds: each text that may quote one passes through it
 *     before it is printed, logged or published
 * @param engineMetrics the inference engines' metrics endpoints to scrape ({@code
 *     --engine-metrics}; {@link EngineSettings#NONE}: none)
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
    boolean ignoreEos,
    Map<String, String> headers,
    ObjectNode extraBody,
    String runId,
    Duration stopGrace,
    ProxySettings proxy,
    String anthropicVersion,
    Traffic traffic,
    Warmup warmup,
    ClientTls tls,
    Secrets secrets,
    EngineSettings engineMetrics) {

  /** True for an open-loop run (requests sent at {@code rate}, not as workers free up). */
  public boolean openLoop() {
    return rate != null || (traffic != null && traffic.openLoop());
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

  /**
   * Requests in the whole run (every sweep stage; a trace's, once), or -1 when the run is bounded
   * by time.
   */
  public long plannedRequests() {
    if (trace() != null) {
      return duration == null ? trace().requests() : -1;
    }
    int stages = sweep() == null ? 1 : sweep().stages().size();
    return duration == null ? (long) totalRequests * models.size() * stages : -1;
  }

  /** The trace this run replays, or null. */
  public TraceSchedule trace() {
    return traffic == null ? null : traffic.trace();
  }

  /** The sweep of this run, or null. */
  public Sweep sweep() {
    return traffic == null ? null : traffic.sweep();
  }

  /** The open-loop rate over time: the {@code schedule}, or the constant {@code rate}. */
  public RateSchedule rateSchedule() {
    if (traffic != null && traffic.schedule() != null) {
      return traffic.schedule();
    }
    return rate == null ? null : RateSchedule.constant(rate);
  }

  /**
   * The config of one sweep stage: its concurrency (and {@code concurrency} label) or its rate, the
   * {@code stage} label, and no sweep; the warm-up only before the first stage ({@code first}); the
   * rest unchanged.
   */
  public ProducerConfig forStage(Sweep.Stage stage, boolean first) {
    SortedMap<String, String> stageLabels = new java.util.TreeMap<>(labels);
    stageLabels.put(Sweep.LABEL, stage.name());
    Integer stageConcurrency = stage.concurrency() != null ? stage.concurrency() : concurrency;
    if (stage.concurrency() != null) {
      stageLabels.put("concurrency", Integer.toString(stage.concurrency()));
    }
    Double stageRate = stage.rate() != null ? stage.rate() : rate;
    Traffic stageTraffic =
        traffic == null
            ? null
            : new Traffic(traffic.conversations(), traffic.schedule(), null, traffic.trace());
    return new ProducerConfig(
        apiBase,
        api,
        apiKey,
        models,
        stageConcurrency,
        totalRequests,
        maxTokens,
        prompts,
        timeouts,
        stageRate,
        arrival,
        seed,
        duration,
        stageLabels,
        includeUsage,
        continuousUsage,
        ignoreEos,
        headers,
        extraBody,
        runId,
        stopGrace,
        proxy,
        anthropicVersion,
        stageTraffic,
        first ? warmup : Warmup.NONE,
        tls,
        secrets,
        engineMetrics);
  }

  /**
   * This config scraping the engines of {@code settings} instead (tpot run fits them to its
   * window).
   */
  public ProducerConfig withEngineMetrics(EngineSettings settings) {
    return Records.with(this, "engineMetrics", settings);
  }

  /** A short printout with every secret masked (a record's own would show headers and the URL). */
  @Override
  public String toString() {
    return secrets.redact(
        "ProducerConfig[apiBase="
            + apiBase
            + ", api="
            + api
            + ", apiKey="
            + apiKey
            + ", models="
            + models
            + ", headers="
            + headers.keySet()
            + ", runId="
            + runId
            + ", proxy="
            + proxy
            + "]");
  }

  /** HTTP connections to keep: the concurrency, or a generous pool for an uncapped open loop. */
  public int poolSize() {
    return concurrency != null ? concurrency : 1000;
  }
}
