package io.tpotstream.app.cli;

import io.tpotstream.app.run.Pipeline;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.config.ProducerConfig;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code tpot run}: producer, aggregator and sink under one command. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    header = "Producer, aggregator and sink in one command (embedded Kafka unless given).",
    description = {
      "Streams chat completions per the config, publishes every token arrival to Kafka, computes"
          + " windowed TPOT percentiles per model and writes them to CSV, tpot.metrics, /metrics and"
          + " charts; shows a live view on stderr (-q: none) and prints, at the end, the whole"
          + " run's table on stdout. Its files go into --out: summaries.csv (appended to),"
          + " summaries.jsonl, report.html and the PNG charts.",
      "Without --bootstrap-server (or bootstrap.servers in --kafka-config, or"
          + " $KAFKA_BOOTSTRAP_SERVERS) it starts an embedded Kafka broker. The broker and the"
          + " aggregator run in a child JVM so that their garbage collection never pauses the"
          + " producer.",
      "On an existing cluster the run reports its own events only (its aggregator starts at the"
          + " end of the token events and keeps this run's) and removes its own topics and groups"
          + " (tpot-run-...) when it ends."
    })
final class RunCommand implements Callable<Integer> {
  @Mixin ProducerConfigOptions configOptions;

  /** Its own --out, beside (not into) the files a tpot sink writes by default. */
  @Mixin RunOptions runOptions = new RunOptions(Path.of("out", "run"));

  @Mixin LoadOptions load;

  @Mixin TrafficOptions traffic;
  @Mixin SloOptions sloOptions;
  @Mixin EngineMetricsOptions engineMetrics;

  @Mixin KafkaOptions kafka;

  @Override
  public Integer call() throws Exception {
    if (configOptions.config == null && configOptions.baseUrl == null) {
      throw new IllegalArgumentException(
          "tpot run needs --config FILE (or --base-url and --models); try ./tpot demo for a run"
              + " against the built-in simulator");
    }
    Map<String, String> flags = new LinkedHashMap<>();
    load.putInto(flags);
    traffic.putInto(flags);
    engineMetrics.putInto(flags);
    SloSpec slo = sloOptions.spec();
    ProducerConfig config = runOptions.withEngineMetricsFitted(configOptions.load(flags));
    Pipeline.Settings settings =
        runOptions.pipeline(
            simulatorUrl -> config,
            config.sweep() != null,
            false,
            kafka,
            slo,
            traffic.requestsOut.file);
    Pipeline.Outcome outcome = new Pipeline(settings, System.out, System.err).run();
    // nothing measured: 2, unless an SLO was asked for, whose verdict (3, "no data") is the gate's
    String nothing = outcome.producer().nothingMeasured();
    if (nothing != null) {
      System.out.flush();
      System.err.println("tpot run: " + nothing);
    }
    int failed = nothing != null ? 2 : 0;
    boolean bounded =
        !outcome.producer().stoppedEarly() && !ConfigDurations.FOREVER.equals(config.duration());
    int missed = outcome.verdict() == null || !bounded ? 0 : outcome.verdict().exitCode();
    return missed != 0 ? missed : failed;
  }
}
