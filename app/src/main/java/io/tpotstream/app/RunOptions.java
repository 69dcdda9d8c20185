package io.tpotstream.app;

import io.tpotstream.app.run.Pipeline;
import io.tpotstream.common.Stages;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.producer.config.Durations;
import io.tpotstream.producer.config.ProducerConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
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

  /**
   * The pipeline's settings from these flags; a sweep's stages are its series, so {@code sweep}
   * adds the stage label to --group-by.
   */
  Pipeline.Settings pipeline(
      Function<String, ProducerConfig> producerConfig,
      boolean sweep,
      boolean simulate,
      KafkaOptions kafka,
      SloSpec slo,
      Path requestsOut) {
    List<String> series = new ArrayList<>(groupBy);
    if (sweep && !series.contains(Stages.LABEL)) {
      series.add(Stages.LABEL);
    }
    return new Pipeline.Settings(
        producerConfig,
        kafka.connectIfGiven().orElse(null),
        out,
        windowSize(),
        series,
        simulate,
        prometheusPort,
        System.console() != null,
        drain(),
        slo,
        requestsOut);
  }

  Duration windowSize() {
    return Durations.parse("--window", window, false);
  }

  Duration drain() {
    return Durations.parse("--drain-timeout", drainTimeout, false);
  }
}
