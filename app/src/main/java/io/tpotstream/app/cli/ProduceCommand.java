package io.tpotstream.app.cli;

import io.tpotstream.app.KafkaAccess;
import io.tpotstream.app.run.SimulatorWarmup;
import io.tpotstream.common.Series;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.slo.SloResult;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.slo.SloVerdict;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.publish.Publisher;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.producer.result.ResultTable;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tpot produce}: streams chat completions per the config and publishes every token arrival
 * to Kafka; prints progress while running and the seed's table per model at the end.
 */
@Command(
    name = "produce",
    mixinStandardHelpOptions = true,
    header = "Stream chat completions and publish every token arrival to Kafka.",
    description =
        "Stream chat completions and publish every token arrival to Kafka; print TPOT"
            + " percentiles per model at the end.")
final class ProduceCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ProducerConfigOptions configOptions;

  @Mixin KafkaOptions kafkaOptions;

  @Mixin EventsTopicOptions events;

  @Mixin TopicPartitionsOptions partitions;

  @Mixin LoadOptions load;

  @Mixin TrafficOptions traffic;

  @Mixin SloOptions sloOptions;

  @Mixin EngineMetricsOptions engineMetrics;

  @Option(names = "--run-id", description = "Config key run_id.")
  String runId;

  @Mixin
  OutageBufferOptions outageBuffer = new OutageBufferOptions(Publisher.DEFAULT_OUTAGE_BUFFER);

  @Mixin LabelOptions labelOptions;

  @Option(
      names = "--progress-interval",
      defaultValue = "5s",
      description =
          "How often to print the progress line when stderr is not a terminal (a terminal shows"
              + " it live) (default: ${DEFAULT-VALUE}; 0 = never).")
  String progressInterval;

  @Mixin ProgressOptions progressOptions;

  @Override
  public Integer call() throws Exception {
    Map<String, String> flags = new LinkedHashMap<>();
    load.putInto(flags);
    ProducerConfigOptions.put(flags, "run_id", runId);
    labelOptions.labels.forEach((k, v) -> flags.put("labels." + k, v));
    traffic.putInto(flags);
    engineMetrics.putInto(flags);
    SloSpec slo = sloOptions.spec();
    ProducerConfig config = configOptions.load(flags);
    KafkaConnection connection = kafkaOptions.connect();
    KafkaSettings kafka =
        KafkaSettings.of(connection)
            .withTopic(events.topic)
            .withPartitions(partitions.partitions)
            .withOutageBuffer(outageBuffer.events);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();

    ProducerRun run =
        KafkaOptions.explained(
            connection,
            KafkaAccess.writer(events.topic),
            "publish to " + events.topic,
            () ->
                Producer.start(
                    config,
                    kafka,
                    new Producer.Outputs(traffic.requestsOut.file, slo.goodput()),
                    SimulatorWarmup::start));
    AtomicBoolean printed = new AtomicBoolean();
    run.stopOnShutdown(
        Duration.ofSeconds(30),
        stopped -> {
          if (printed.compareAndSet(false, true)) {
            out.print(ResultTable.format(stopped));
            out.flush();
          }
        });
    long everyMs =
        progressInterval.equals("0")
            ? 0
            : ConfigDurations.parse("--progress-interval", progressInterval, false).toMillis();
    RunResult result;
    try (Progress progress =
        Progress.start(
            "produce",
            everyMs == 0 ? Progress.Mode.QUIET : progressOptions.mode(),
            err,
            Duration.ofMillis(Math.max(1, everyMs)))) {
      io.tpotstream.producer.ProducerState first = run.progress();
      progress.phase(
          first.planned() >= 0 ? "" : "running", "requests", Math.max(-1, first.planned()));
      progress.refresh(
          () -> {
            io.tpotstream.producer.ProducerState now = run.progress();
            progress.set(now.finished());
            if (now.planned() < 0 && now.duration() != null) {
              progress.fraction(now.elapsed().toMillis(), now.duration().toMillis());
            }
            progress.detail(() -> ResultTable.progressDetail(now));
          });
      result = run.result().join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    }
    if (printed.compareAndSet(false, true)) {
      out.print(ResultTable.format(result));
      out.flush();
    }
    if (traffic.requestsOut.file != null) {
      out.println("Requests: " + traffic.requestsOut.file);
    }
    // nothing measured: 2, unless an SLO was asked for, whose verdict (3, "no data") is the gate's
    String nothing = result.nothingMeasured();
    if (nothing != null) {
      out.flush();
      err.println("tpot produce: " + nothing);
      err.flush();
    }
    int failed = nothing != null ? 2 : 0;
    if (slo.isEmpty()) {
      out.flush();
      return failed;
    }
    SloVerdict verdict = verdict(slo, result);
    out.println(verdict.line());
    out.flush();
    boolean bounded = !result.stoppedEarly() && !ConfigDurations.FOREVER.equals(config.duration());
    int missed = bounded ? verdict.exitCode() : 0;
    return missed != 0 ? missed : failed;
  }

  /** The producer's own verdict: per model (and stage), from its own measurements. */
  static SloVerdict verdict(SloSpec slo, RunResult result) {
    Map<String, SloResult> byModel = new LinkedHashMap<>();
    for (ModelResult m : result.models()) {
      if (m.completed() + m.failed() > 0) {
        String name =
            m.stage() == null ? m.model() : Series.name(m.model(), Map.of("stage", m.stage()));
        byModel.put(name, slo.evaluate(m.stats()));
      }
    }
    return SloVerdict.of(slo, byModel);
  }
}
