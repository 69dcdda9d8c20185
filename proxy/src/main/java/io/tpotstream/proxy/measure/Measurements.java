package io.tpotstream.proxy.measure;

import io.tpotstream.common.event.TokenEventBounds;
import io.tpotstream.producer.publish.Handoff;
import io.tpotstream.proxy.ProxyConfig;
import io.tpotstream.proxy.events.ProxyEvents;
import io.tpotstream.proxy.http.ExchangeObserver;
import io.tpotstream.proxy.http.ObserverFactory;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.tpotstream.proxy.prefix.PrefixHashKey;
import io.vertx.core.http.HttpServerRequest;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Decides which exchanges are measured and starts their {@link Measurement}: chat completions and
 * messages only, a {@code --sample} fraction of them; labels come from the configured labels, the
 * route ({@code route}: the request's path) and only the request headers the operator named ({@code
 * --label-header X-App=app}); request ids are the proxy's own ({@code producerId-N}), never a
 * client's.
 */
public final class Measurements implements ObserverFactory {
  /** The longest label value taken from a header; longer ones are cut. */
  static final int MAX_LABEL_CHARS = 64;

  /** The longest model name taken from a request body (the token event's); longer ones are cut. */
  static final int MAX_MODEL_CHARS = TokenEventBounds.MAX_MODEL_CHARS;

  /** The longest request id taken from a header; longer ones are cut. */
  static final int MAX_REQUEST_ID_CHARS = 128;

  private final ProxyConfig config;
  private final ProxyEvents events;
  private final ProxyMetrics metrics;
  private final AtomicLong requests = new AtomicLong();
  private final boolean warmup;

  /** The most model names {@link #modelsSeen} keeps. */
  static final int MAX_MODELS_SEEN = 64;

  // the models the measured requests named: an engine that serves one model is theirs when they
  // named one (a served-model-name alias), as a producer's run models are (EngineScraper)
  private final CopyOnWriteArrayList<String> modelsSeen = new CopyOnWriteArrayList<>();

  /** Measures into {@code events}; a request id the client did not give is its producer id-N. */
  public Measurements(ProxyConfig config, ProxyEvents events, ProxyMetrics metrics) {
    this(config, events, metrics, false);
  }

  /**
   * The same, every measured request marked as warm-up ({@code warmup}: the proxy's priming, whose
   * events every statistic leaves out).
   */
  public Measurements(
      ProxyConfig config, ProxyEvents events, ProxyMetrics metrics, boolean warmup) {
    this.warmup = warmup;
    this.config = config;
    this.events = events;
    this.metrics = metrics;
  }

  /** The models the measured requests named so far (the first {@link #MAX_MODELS_SEEN}). */
  public List<String> modelsSeen() {
    return modelsSeen;
  }

  /** A measured request named {@code model}. */
  void sawModel(String model) {
    if (modelsSeen.size() < MAX_MODELS_SEEN) {
      modelsSeen.addIfAbsent(model);
    }
  }

  @Override
  public ExchangeObserver begin(HttpServerRequest request, Route route, long startNs) {
    if (!route.measurable()) {
      metrics.passthrough();
      return ExchangeObserver.NONE;
    }
    double sample = config.sample();
    if (sample < 1 && ThreadLocalRandom.current().nextDouble() >= sample) {
      metrics.unsampled();
      return ExchangeObserver.NONE;
    }
    String requestId = null;
    if (config.requestIdHeader() != null) {
      requestId =
          bounded(request.getHeader(config.requestIdHeader()), MAX_REQUEST_ID_CHARS, metrics);
    }
    if (requestId == null || requestId.isBlank()) {
      // the priming's ids are its own: they never meet a real request's in the topic
      requestId = events.producerId() + (warmup ? "-prime-" : "-") + requests.incrementAndGet();
    }
    return new Measurement(this, route, request.path(), requestId, labels(request), startNs);
  }

  /**
   * {@code value} cut to {@code max} characters (counted as cut in {@code metrics}): a client sends
   * what it likes, and every value that reaches an event, a series or Kafka is bounded.
   */
  static String bounded(String value, int max, ProxyMetrics metrics) {
    if (value == null || value.length() <= max) {
      return value;
    }
    metrics.valueCut();
    return value.substring(0, max);
  }

  private SortedMap<String, String> labels(HttpServerRequest request) {
    SortedMap<String, String> labels = new TreeMap<>(config.labels());
    labels.put("route", Route.template(request.path()));
    for (Map.Entry<String, String> h : config.labelHeaders().entrySet()) {
      String value = request.getHeader(h.getKey());
      if (value != null && !value.isBlank()) {
        String v = value.trim();
        labels.put(h.getValue(), bounded(v, MAX_LABEL_CHARS, metrics));
      }
    }
    return labels;
  }

  /** The key of the prompts' block hashes, or null when they are not captured. */
  PrefixHashKey prefixHashKey() {
    return config.prefixHashKey();
  }

  /** True when these measurements are the priming's (marked warm-up). */
  boolean warmup() {
    return warmup;
  }

  Handoff handoff() {
    return events.handoff();
  }

  ProxyMetrics metrics() {
    return metrics;
  }
}
