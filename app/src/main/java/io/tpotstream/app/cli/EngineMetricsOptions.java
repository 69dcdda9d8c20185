package io.tpotstream.app.cli;

import io.tpotstream.producer.engine.EngineMapping;
import io.tpotstream.producer.engine.EngineSettings;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --engine-metrics}, {@code --engine-metrics-interval} and {@code --engine-mapping}: the
 * inference engines' Prometheus endpoints scraped beside the measurement (docs/producer.md, "The
 * engine's own view"), the same in {@code produce}, {@code run} and {@code proxy}. For the first
 * two each flag sets the config key its name spells ({@link ProducerConfigOptions#putConfigKeys});
 * the proxy, which has no config file, reads them into {@link EngineSettings} directly.
 */
final class EngineMetricsOptions {
  @Option(
      names = "--engine-metrics",
      paramLabel = "URL[,URL...]",
      description =
          "Config key engine_metrics: the inference engine's Prometheus endpoint(s) to scrape"
              + " (vLLM, SGLang, TGI; e.g. http://127.0.0.1:8000/metrics), so that each window"
              + " holds the engine's own latencies, queue and KV cache beside the client's; or a"
              + " JSON list of {\"url\", \"model\", \"mapping\"}.")
  String engineMetrics;

  @Option(
      names = "--engine-metrics-interval",
      paramLabel = "DURATION",
      description =
          "Config key engine_metrics_interval: how often to scrape, at least 1s (default: 5s;"
              + " tpot run: at most --window, and the window when that is shorter).")
  String engineMetricsInterval;

  @Option(
      names = "--engine-mapping",
      paramLabel = "vllm|sglang|tgi|auto|FILE",
      description =
          "Config key engine_mapping: which metric names to read (default: auto, chosen by the"
              + " names the first scrape shows), or a JSON mapping file for another engine.")
  String engineMapping;

  @Spec CommandSpec spec;

  /**
   * Puts the flags given into {@code flags}, by config key; a mapping file as an absolute path, as
   * a flag's files are read from the working directory (a config file's from its folder).
   */
  void putInto(Map<String, String> flags) {
    ProducerConfigOptions.putConfigKeys(spec, flags);
    if (engineMapping != null && !EngineMapping.isBuiltIn(engineMapping)) {
      flags.put("engine_mapping", Path.of(engineMapping.trim()).toAbsolutePath().toString());
    }
  }

  /** The settings these flags give alone (the proxy); mapping files from the working directory. */
  EngineSettings settings() {
    return EngineSettings.ofFlags(engineMetrics, engineMetricsInterval, engineMapping);
  }
}
