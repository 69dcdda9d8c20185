package io.tpotstream.app;

import io.tpotstream.producer.config.Durations;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Flags shared by {@code tpot run} and {@code tpot demo}. */
final class RunOptions {
  @Option(
      names = "--out",
      defaultValue = "out",
      description =
          "Directory for the CSV, the HTML report and the PNG charts (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--window",
      defaultValue = "10s",
      description = "Window size of the percentiles (default: ${DEFAULT-VALUE}).")
  String window;

  @Option(
      names = "--group-by",
      split = ",",
      paramLabel = "LABEL",
      description = "Labels that split series besides the model, e.g. concurrency,target.")
  List<String> groupBy = new ArrayList<>();

  @Option(
      names = "--prometheus-port",
      defaultValue = "0",
      description = "Port of the sink's /metrics (default: any free port; -1: off).")
  int prometheusPort;

  @Option(
      names = "--drain-timeout",
      defaultValue = "2m",
      description =
          "How long to wait, after the last request, for the last windows (default: ${DEFAULT-VALUE}).")
  String drainTimeout;

  Duration windowSize() {
    return Durations.parse("--window", window, false);
  }

  Duration drain() {
    return Durations.parse("--drain-timeout", drainTimeout, false);
  }
}
