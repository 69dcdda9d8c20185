package io.tpotstream.proxy.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The proxy's own {@code GET /metrics} (Prometheus text format), on a port of its own so that no
 * path of the proxied API is shadowed; served by the Prometheus client's server threads, never by
 * the proxy's event loops.
 */
public final class MetricsEndpoint implements Closeable {
  private final HTTPServer server;

  private MetricsEndpoint(HTTPServer server) {
    this.server = server;
  }

  /**
   * Serves {@code metrics} on {@code host}:{@code port} (0: any free port, see {@link #port()}).
   */
  public static MetricsEndpoint start(String host, int port, ProxyMetrics metrics) {
    try {
      return new MetricsEndpoint(
          HTTPServer.builder()
              .hostname(host)
              .port(port)
              .registry(metrics.registry())
              .buildAndStart());
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot serve /metrics on "
              + host
              + ":"
              + port
              + " ("
              + e.getMessage()
              + "): is another process using it? Choose another --metrics-port (-1 for none)",
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
