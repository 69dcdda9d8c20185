package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * {@code GET /metrics} for Prometheus ({@link TpotCollector}): text, OpenMetrics, or protobuf with
 * native histograms, whichever the scraper asks for.
 */
public final class PrometheusEndpoint implements Closeable {
  private final HTTPServer server;

  private PrometheusEndpoint(HTTPServer server) {
    this.server = server;
  }

  /**
   * Serves {@code view} on {@code host}:{@code port}.
   *
   * @param host the address to bind, null for every interface
   * @param port the port, 0 for any free one (see {@link #port()})
   */
  public static PrometheusEndpoint start(String host, int port, PrometheusView view) {
    PrometheusRegistry registry = new PrometheusRegistry();
    registry.register(new TpotCollector(view));
    HTTPServer.Builder builder = HTTPServer.builder().port(port).registry(registry);
    if (host != null) {
      builder.hostname(host);
    }
    try {
      return new PrometheusEndpoint(builder.buildAndStart());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve /metrics on port "
              + port
              + " ("
              + e.getMessage()
              + "): is another process using it? Choose another --prometheus-port",
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
