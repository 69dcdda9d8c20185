package io.tpotstream.app.cli;

import picocli.CommandLine.Option;

/**
 * {@code --log-scale}: the latency charts' scale, the same flag in {@code report} and {@code sink}.
 */
final class LogScaleOptions {
  @Option(names = "--log-scale", description = "Latency charts on a log scale.")
  boolean logScale;
}
