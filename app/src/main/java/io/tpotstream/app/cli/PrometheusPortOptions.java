package io.tpotstream.app.cli;

import picocli.CommandLine.Option;

/**
 * {@code --prometheus-port}: the sink's {@code /metrics}, in {@code sink} and in {@code run} and
 * {@code demo}; each command gives its own default through the constructor.
 */
final class PrometheusPortOptions {
  @Option(
      names = "--prometheus-port",
      paramLabel = "PORT",
      description =
          "Port of the sink's GET /metrics, 0 for any free port, -1 for none (default:"
              + " ${DEFAULT-VALUE}).")
  int port;

  PrometheusPortOptions(int defaultPort) {
    this.port = defaultPort;
  }
}
