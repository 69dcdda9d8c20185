package io.tpotstream.app.cli;

import picocli.CommandLine.Option;

/**
 * {@code --port}: where a local server listens, {@code broker} and {@code simulate}; each command
 * gives its own default through the constructor.
 */
final class ListenPortOptions {
  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).")
  int port;

  ListenPortOptions(int defaultPort) {
    this.port = defaultPort;
  }
}
