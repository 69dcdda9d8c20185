package io.tpotstream.app.cli;

import io.tpotstream.app.run.Pipeline;
import io.tpotstream.common.Stages;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.engine.EngineSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Flags shared by {@code tpot run} and {@code tpot demo}. */
final class RunOptions {
  @Mixin OutDirOptions outDir;

  @Mixin SeriesOptions series;

  @Mixin PrometheusPortOptions prometheusPort = new PrometheusPortOptions(0);

  @Mixin ProgressOptions progress;

  /** {@code defaultOut}: the command's own {@code --out}. */
  RunOptions(Path defaultOut) {
    this.outDir = new OutDirOptions(defaultOut);
  }

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
    Pipeline.checkOutputsFree(outDir.out);
    List<String> labels = new ArrayList<>(series.groupBy);
    if (sweep && !labels.contains(Stages.LABEL)) {
      labels.add(Stages.LABEL);
    }
    return new Pipeline.Settings(
        producerConfig,
        kafka.connectIfGiven().orElse(null),
        outDir.out,
        windowSize(),
        labels,
        simulate,
        prometheusPort.port,
        progress.mode(),
        drain(),
        slo,
        requestsOut);
  }

  /**
   * {@code config} with its engine scrapes fitted to the window ({@link EngineSettings#forWindow});
   * a window that is not a whole number of scrape intervals is warned about on stderr.
   */
  ProducerConfig withEngineMetricsFitted(ProducerConfig config) {
    EngineSettings fitted = config.engineMetrics().forWindow(windowSize());
    String warning = fitted.windowWarning(windowSize());
    if (warning != null) {
      System.err.println("tpot: warning: " + warning);
    }
    return config.withEngineMetrics(fitted);
  }

  /** The window length; checked here so that a run does not start a broker for nothing. */
  Duration windowSize() {
    if (series.window.toMillis() < 1) {
      throw new IllegalArgumentException("--window must be at least 1 ms, e.g. 10s");
    }
    return series.window;
  }

  Duration drain() {
    return ConfigDurations.parse("--drain-timeout", drainTimeout, false);
  }
}
