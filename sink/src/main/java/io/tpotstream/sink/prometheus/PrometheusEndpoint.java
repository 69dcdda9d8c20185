package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.tpotstream.common.metrics.MetricsServer;

/**
 * {@code GET /metrics} for Prometheus ({@link TpotCollector}): text, OpenMetrics, or protobuf with
 * native histograms, whichever the scraper asks for (common's {@link MetricsServer}), with the
 * counters' created timestamps.
 */
public final class PrometheusEndpoint {
  private PrometheusEndpoint() {}

  /**
   * Serves {@code view} on {@code host}:{@code port}.
   *
   * @param host the address to bind, null for every interface
   * @param port the port, 0 for any free one (see {@link MetricsServer#port()})
   */
  public static MetricsServer start(String host, int port, PrometheusView view) {
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(new TpotCollector(view));
    return MetricsServer.start(host, port, registry, "port " + port, "--prometheus-port", true);
  }
}
