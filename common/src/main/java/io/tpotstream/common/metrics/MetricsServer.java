package io.tpotstream.common.metrics;

import io.prometheus.metrics.config.ExporterProperties;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * {@code GET /metrics} of a Prometheus registry (text, OpenMetrics, or protobuf with native
 * histograms, whichever the scraper asks for), served by the Prometheus client's HTTP server on its
 * own threads: the sink's and the proxy's endpoint. Common's dependency on that server is optional
 * (no other module carries it): a module that starts one declares {@code
 * prometheus-metrics-exporter-httpserver} itself.
 */
public final class MetricsServer implements Closeable {
  private final HTTPServer server;

  private MetricsServer(HTTPServer server) {
    this.server = server;
  }

  /**
   * Serves {@code registry} on {@code host}:{@code port}.
   *
   * @param host the address to bind, null for every interface
   * @param port the port, 0 for any free one (see {@link #port()})
   * @param where the address as the error names it when the port cannot be bound
   * @param option what the error tells the user to choose instead (an option, e.g. {@code
   *     --metrics-port})
   * @throws UncheckedIOException when the port cannot be bound
   */
  public static MetricsServer start(
      String host, int port, PrometheusRegistry registry, String where, String option) {
    return start(host, port, registry, where, option, false);
  }

  /**
   * As {@link #start(String, int, PrometheusRegistry, String, String)}; with {@code
   * createdTimestamps} the counters and histograms that carry a created timestamp expose it ({@code
   * _created} in the text formats), so that a reset reads as one.
   */
  public static MetricsServer start(
      String host,
      int port,
      PrometheusRegistry registry,
      String where,
      String option,
      boolean createdTimestamps) {
    HTTPServer.Builder builder =
        createdTimestamps
            ? HTTPServer.builder(
                PrometheusProperties.builder()
                    .exporterProperties(
                        ExporterProperties.builder().includeCreatedTimestamps(true).build())
                    .build())
            : HTTPServer.builder();
    try {
      return new MetricsServer(
          builder.hostname(host).port(port).registry(registry).buildAndStart());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve /metrics on "
              + where
              + " ("
              + e.getMessage()
              + "): is another process using it? Choose another "
              + option,
          e);
    }
  }

  /** The port actually bound. */
  public int port() {
    return server.getPort();
  }

  @Override
  public void close() {
    server.close();
  }
}
