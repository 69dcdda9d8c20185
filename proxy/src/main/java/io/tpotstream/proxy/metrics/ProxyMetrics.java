package io.tpotstream.proxy.metrics;

import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.tpotstream.producer.engine.EngineScrapes;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The proxy's own health, for its {@code /metrics}: requests by kind, gateway errors, client
 * disconnects, requests in its own queue and its timeouts, client connections closed by its limits,
 * chunks forwarded, the proxy's added latency per chunk (from the read of an upstream chunk to the
 * return of its write to the client), and the token events published and dropped. Every name starts
 * with {@code tpot_proxy_}. Safe from any thread; cheap on the event loop.
 */
public final class ProxyMetrics {
  /** Added latency buckets, in seconds: 1 µs to 50 ms. */
  private static final double[] LATENCY_BOUNDS = {
    1e-6, 2e-6, 5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6, 500e-6, 1e-3, 2e-3, 5e-3, 10e-3, 50e-3
  };

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter requests;
  private final CounterDataPoint measured;
  private final CounterDataPoint unsampled;
  private final CounterDataPoint notStreaming;
  private final CounterDataPoint passthrough;
  private final Counter gatewayErrors;
  private final Counter clientDisconnects;
  private final Counter valuesCut;
  private final Counter queueTimeouts;
  private final Counter clientTimeouts;
  private final CounterDataPoint headerTimeouts;
  private final CounterDataPoint idleTimeouts;
  private final Histogram addedLatency;
  private final AtomicLong inFlight = new AtomicLong();
  private final AtomicLong queued = new AtomicLong();
  private final LongAccumulator maxAddedNs = new LongAccumulator(Math::max, 0);

  public ProxyMetrics() {
    requests =
        Counter.builder()
            .name("tpot_proxy_requests")
            .help(
                "Requests forwarded, by kind: measured (a sampled streaming chat/messages request),"
                    + " unsampled, not_streaming (chat/messages without stream: true), passthrough"
                    + " (any other path)")
            .labelNames("kind")
            .register(registry);
    measured = requests.labelValues("measured");
    unsampled = requests.labelValues("unsampled");
    notStreaming = requests.labelValues("not_streaming");
    passthrough = requests.labelValues("passthrough");
    gatewayErrors =
        Counter.builder()
            .name("tpot_proxy_gateway_errors")
            .help(
                "Responses the proxy made itself or cut because the upstream gave none (502, 504,"
                    + " or a reset mid-response) or its own queue was full (503), by reason")
            .labelNames("reason")
            .register(registry);
    clientDisconnects =
        Counter.builder()
            .name("tpot_proxy_client_disconnects")
            .help("Clients that closed their connection before the response ended")
            .register(registry);
    valuesCut =
        Counter.builder()
            .name("tpot_proxy_values_cut")
            .help(
                "Values a client sent (model, a label header, a request id) longer than their cap,"
                    + " cut before they reached an event")
            .register(registry);
    queueTimeouts =
        Counter.builder()
            .name("tpot_proxy_queue_timeouts")
            .help(
                "Requests answered 503 proxy_queue_timeout: every upstream connection of their event"
                    + " loop (--max-connections) stayed busy for --connect-timeout, so they waited"
                    + " in the proxy's own queue and were never sent upstream")
            .register(registry);
    GaugeWithCallback.builder()
        .name("tpot_proxy_requests_queued")
        .help(
            "Requests waiting now in the proxy's own queue for an upstream connection (every"
                + " connection of their event loop busy: --max-connections)")
        .callback(cb -> cb.call(queued.get()))
        .register(registry);
    clientTimeouts =
        Counter.builder()
            .name("tpot_proxy_client_timeouts")
            .help(
                "Client connections the proxy closed: header (a request head not complete within"
                    + " --client-header-timeout), idle (no request for --client-idle-timeout)")
            .labelNames("kind")
            .register(registry);
    headerTimeouts = clientTimeouts.labelValues("header");
    idleTimeouts = clientTimeouts.labelValues("idle");
    addedLatency =
        Histogram.builder()
            .name("tpot_proxy_added_latency_seconds")
            .help(
                "Per forwarded chunk (its _count counts them): from the proxy's read of the upstream"
                    + " chunk to the return of its write to the client socket")
            .classicOnly()
            .classicUpperBounds(LATENCY_BOUNDS)
            .withoutExemplars()
            .register(registry);
    GaugeWithCallback.builder()
        .name("tpot_proxy_added_latency_max_seconds")
        .help("The largest added latency of one chunk since the proxy started")
        .callback(cb -> cb.call(maxAddedNs.get() / 1e9))
        .register(registry);
    GaugeWithCallback.builder()
        .name("tpot_proxy_requests_in_flight")
        .help("Requests being forwarded now")
        .callback(cb -> cb.call(inFlight.get()))
        .register(registry);
  }

  /** Adds the counters of the engines' scrapes ({@code --engine-metrics}). */
  public void registerEngine(Supplier<EngineScrapes> scrapes) {
    CounterWithCallback.builder()
        .name("tpot_proxy_engine_scrapes")
        .help("Scrapes of the engines' metrics endpoints that were read (--engine-metrics)")
        .callback(cb -> cb.call(scrapes.get().scrapes()))
        .register(registry);
    CounterWithCallback.builder()
        .name("tpot_proxy_engine_scrape_failures")
        .help(
            "Scrapes of the engines' metrics endpoints that failed (each logged; the first of a kind at WARN)")
        .callback(cb -> cb.call(scrapes.get().failed()))
        .register(registry);
  }

  /** Adds the token-event counters of the publishing side. */
  public void registerEvents(LongSupplier published, LongSupplier dropped, LongSupplier held) {
    CounterWithCallback.builder()
        .name("tpot_proxy_events_published")
        .help("Token events Kafka acknowledged")
        .callback(cb -> cb.call(published.getAsLong()))
        .register(registry);
    CounterWithCallback.builder()
        .name("tpot_proxy_events_dropped")
        .help(
            "Token events dropped because Kafka was slow or down (the traffic itself never waits"
                + " for Kafka)")
        .callback(cb -> cb.call(dropped.getAsLong()))
        .register(registry);
    GaugeWithCallback.builder()
        .name("tpot_proxy_events_held")
        .help("Token events held for Kafka now (while it is slow or down), before any drop")
        .callback(cb -> cb.call(held.getAsLong()))
        .register(registry);
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  public void measured() {
    measured.inc();
  }

  public void unsampled() {
    unsampled.inc();
  }

  public void notStreaming() {
    notStreaming.inc();
  }

  public void passthrough() {
    passthrough.inc();
  }

  public void gatewayError(String reason) {
    gatewayErrors.labelValues(reason).inc();
  }

  public void clientDisconnect() {
    clientDisconnects.inc();
  }

  /** A value from a request was longer than its cap and was cut. */
  public void valueCut() {
    valuesCut.inc();
  }

  /** {@code delta} requests joined (1) or left (-1) the wait for a pooled upstream connection. */
  public void queued(int delta) {
    queued.addAndGet(delta);
  }

  /** Requests waiting in the proxy's own queue now. */
  public long queuedNow() {
    return queued.get();
  }

  /** A request waited in the proxy's own queue for the connect timeout and was answered 503. */
  public void queueTimeout() {
    queueTimeouts.inc();
  }

  /** A client connection was closed: its request head did not come within the header timeout. */
  public void clientHeaderTimeout() {
    headerTimeouts.inc();
  }

  /** A kept-alive client connection was closed: idle for the client idle timeout. */
  public void clientIdleTimeout() {
    idleTimeouts.inc();
  }

  public void requestStarted() {
    inFlight.incrementAndGet();
  }

  public void requestFinished() {
    inFlight.decrementAndGet();
  }

  /** Requests being forwarded now. */
  public long inFlight() {
    return inFlight.get();
  }

  /** Records one chunk's added latency, in ns. */
  public void chunkForwarded(long addedNs) {
    addedLatency.observe(addedNs / 1e9);
    maxAddedNs.accumulate(addedNs);
  }

  /** Chunks forwarded since start. */
  public long chunksForwarded() {
    return addedLatency.collect().getDataPoints().get(0).getCount();
  }

  /** The largest added latency of one chunk since start, in ns. */
  public long maxAddedNs() {
    return maxAddedNs.get();
  }
}
