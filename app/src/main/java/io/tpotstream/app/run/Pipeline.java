package io.tpotstream.app.run;

import io.tpotstream.app.Logging;
import io.tpotstream.common.Stages;
import io.tpotstream.common.jvm.JvmOptions;
import io.tpotstream.common.kafka.KafkaAccessException;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.slo.SloResult;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.slo.SloVerdict;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.producer.result.ResultTable;
import io.tpotstream.sink.Sink;
import io.tpotstream.sink.SinkConfig;
import io.tpotstream.sink.file.WriterLock;
import io.tpotstream.sink.record.EngineRun;
import io.tpotstream.sink.record.WholeRunTable;
import io.tpotstream.sink.report.Report;
import io.tpotstream.sink.report.ReportModel;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * {@code tpot run} and {@code tpot demo}: the producer in this JVM; the broker (unless given), the
 * aggregator and, for the demo, the simulator in a child JVM ({@link Backend}) so that their
 * garbage collection never pauses the instrument; the sink in this JVM (it only wakes once per
 * window). At the end, the seed's table per series from merged window histograms and the paths of
 * the files, on {@code out}; the live view and what the run is waiting for on {@code err}, as
 * {@link Settings#view} says (nothing with {@code --quiet}; warnings always show).
 */
public final class Pipeline {
  /**
   * What to run. {@code kafka} null: start the embedded broker; else that cluster, shared or not
   * (the run reports its own events only and removes its topics and groups at the end). {@code slo}
   * goes to the aggregator (every window) and judges the whole run; {@code requestsOut}, when not
   * null, gets the producer's per-request records. {@code view}: how the live view shows ({@link
   * Progress.Mode#auto}: on a terminal, in a log, or not at all).
   */
  public record Settings(
      Function<String, ProducerConfig> producerConfig,
      KafkaConnection kafka,
      Path out,
      Duration window,
      List<String> groupBy,
      boolean simulate,
      int prometheusPort,
      Progress.Mode view,
      Duration drainTimeout,
      SloSpec slo,
      Path requestsOut) {}

  /** What a run produced; {@code verdict} is null without an SLO. */
  public record Outcome(
      RunResult producer,
      List<WindowSummary> wholeRun,
      Path csv,
      Path report,
      List<Path> charts,
      SloVerdict verdict) {}

  private final Settings settings;
  private final PrintStream out;
  private final PrintStream err;
  private final AtomicReference<String> backendFailure = new AtomicReference<>();

  /** A run printing its results on {@code out}, its live view and progress on {@code err}. */
  public Pipeline(Settings settings, PrintStream out, PrintStream err) {
    this.settings = settings;
    this.out = out;
    this.err = err;
  }

  /** What the run is doing now (the live view's kin): on {@code err}, not with --quiet. */
  private void say(String line) {
    if (settings.view() != Progress.Mode.QUIET) {
      err.println(line);
    }
  }

  /**
   * Fails at once when a sink is writing the summaries files in {@code out}: a run would stop on
   * them only after its broker and aggregator started.
   *
   * @throws io.tpotstream.sink.file.FileInUseException naming the file and its writer
   */
  public static void checkOutputsFree(Path out) {
    Path csv = out.resolve("summaries.csv");
    WriterLock.checkFree(csv);
    WriterLock.checkFree(SinkConfig.jsonlBeside(csv));
  }

  public Outcome run() throws Exception {
    // the live view and the final table say what happens; component INFO lines would interleave
    Logging.onlyWarnings();
    Files.createDirectories(settings.out());
    KafkaConnection given = settings.kafka();
    RunOnCluster names = RunOnCluster.fresh();
    List<String> args =
        List.of(
            given == null ? "embedded" : given.bootstrapServers(),
            given == null || given.configFile() == null ? "-" : given.configFile().toString(),
            Long.toString(
                (given == null ? KafkaConnection.DEFAULT_TIMEOUT : given.timeout()).toMillis()),
            Long.toString(settings.window().toMillis()),
            names.applicationId(),
            names.summariesTopic(),
            Boolean.toString(settings.simulate()),
            String.join(",", settings.groupBy()),
            settings.slo().sloText(),
            settings.slo().goodputText());
    say(
        given == null
            ? "Starting the embedded Kafka broker and the aggregator in a child JVM..."
            : "Starting the aggregator in a child JVM against Kafka at "
                + given.describe()
                + "...");
    BackendJvm backend =
        BackendJvm.start(
            Backend.class,
            // the aggregator's JVM, as ./tpot aggregate would start it
            JvmOptions.of("aggregate", System.getenv()),
            args,
            line -> {
              if (line.startsWith(Backend.FAILED)) {
                backendFailure.compareAndSet(null, line.substring(Backend.FAILED.length()));
              }
            });
    KafkaConnection kafka = given;
    // on an existing cluster the run removes its topics and groups however it ends, Ctrl-C included
    AtomicBoolean cleaned = new AtomicBoolean(given == null);
    Runnable cleanUp =
        () -> {
          backend.close();
          if (cleaned.compareAndSet(false, true)) {
            names.cleanUp(given, out);
          }
        };
    Thread onExit = new Thread(cleanUp, "tpot-run-clean-up");
    Runtime.getRuntime().addShutdownHook(onExit);
    if (given != null) {
      RunOnCluster.removeLeftovers(given, out);
    }
    try {
      String ready = backend.awaitLine(Backend.READY, Backend.FAILED, Duration.ofMinutes(2));
      String simulator = field(ready, "simulator");
      if (kafka == null) {
        kafka = KafkaConnection.of(field(ready, "bootstrap"));
      }
      ProducerConfig config =
          settings.producerConfig().apply("-".equals(simulator) ? null : simulator);
      backend.send(Backend.AGGREGATE + config.runId());
      backend.awaitLine(Backend.AGGREGATING, Backend.FAILED, Duration.ofMinutes(2));
      out.println(
          "Kafka at "
              + kafka.bootstrapServers()
              + (settings.simulate() ? ", simulator at " + simulator : "")
              + "; window "
              + settings.window().toSeconds()
              + " s; run "
              + config.runId()
              + ".");
      return runWith(kafka, names, config);
    } catch (BackendJvm.ChildFailedException e) {
      throw given == null
          ? new IllegalStateException(e.getMessage(), e)
          : new KafkaAccessException(e.getMessage(), e);
    } finally {
      cleanUp.run();
      try {
        Runtime.getRuntime().removeShutdownHook(onExit);
      } catch (IllegalStateException e) {
        // the JVM is exiting: the hook runs (and finds nothing left to do)
      }
    }
  }

  private Outcome runWith(KafkaConnection kafka, RunOnCluster names, ProducerConfig config)
      throws Exception {
    Path csv = settings.out().resolve("summaries.csv");
    SinkConfig.Builder sinkConfig =
        SinkConfig.builder(kafka.bootstrapServers())
            .kafkaProperties(kafka.settings())
            .inputTopic(names.summariesTopic())
            .groupId(names.sinkGroup())
            .csv(csv);
    sinkConfig =
        settings.prometheusPort() < 0
            ? sinkConfig.noPrometheus()
            : sinkConfig.prometheus("127.0.0.1", settings.prometheusPort());
    try (Sink sink = Sink.start(sinkConfig.build());
        LiveView live =
            new LiveView(kafka.clientProperties(), names.summariesTopic(), err, settings.view())) {
      sink.prometheusPort()
          .ifPresent(port -> out.println("Prometheus: http://127.0.0.1:" + port + "/metrics"));
      live.start();
      ProducerRun run =
          Producer.start(
              config,
              KafkaSettings.of(kafka),
              new Producer.Outputs(settings.requestsOut(), settings.slo().goodput()),
              SimulatorWarmup::start);
      run.stopOnShutdown(Duration.ofSeconds(30));
      RunResult result = awaitProducer(run, live);
      live.progress(ResultTable.progressLine(run.progress()));
      say("Requests done; waiting for the last windows to close...");
      awaitAccounted(result, live);
      long expected = live.summaries();
      long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
      while (sink.summariesWritten() < expected && System.nanoTime() < deadline) {
        throwIfBackendFailed();
        Thread.sleep(100);
      }
      if (sink.summariesWritten() < expected) {
        out.printf(
            "warning: the sink wrote %d of %d summaries within %s%n",
            sink.summariesWritten(), expected, settings.drainTimeout());
      }
      sink.close();
      return finish(result, csv);
    }
  }

  /** The run's aggregator stopped on an error: the run cannot complete. */
  private void throwIfBackendFailed() {
    String failure = backendFailure.get();
    if (failure != null) {
      throw new IllegalStateException("the run's aggregator stopped: " + failure);
    }
  }

  private RunResult awaitProducer(ProducerRun run, LiveView live) throws Exception {
    while (true) {
      try {
        return run.result().get(5, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throwIfBackendFailed();
        live.progress(ResultTable.progressLine(run.progress()));
      } catch (java.util.concurrent.ExecutionException e) {
        throw e.getCause() instanceof Exception cause ? cause : e;
      }
    }
  }

  /** Waits until the summaries count every request the producer finished, per model. */
  private void awaitAccounted(RunResult result, LiveView live) throws InterruptedException {
    Map<String, Long> done = new LinkedHashMap<>();
    for (ModelResult m : result.models()) {
      done.merge(m.model(), m.completed() + m.failed(), Long::sum);
    }
    long deadline = System.nanoTime() + settings.drainTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (Map.Entry<String, Long> m : done.entrySet()) {
        if (live.finished(m.getKey()) < m.getValue()) {
          all = false;
          break;
        }
      }
      if (all) {
        return;
      }
      throwIfBackendFailed();
      Thread.sleep(100);
    }
    StringBuilder missing = new StringBuilder();
    for (Map.Entry<String, Long> m : done.entrySet()) {
      missing.append(
          String.format(" %s %d/%d", m.getKey(), live.finished(m.getKey()), m.getValue()));
    }
    out.println(
        "warning: not every request is in a closed window after "
            + settings.drainTimeout()
            + " (requests in summaries / done:"
            + missing
            + "); is the aggregator running?");
  }

  private Outcome finish(RunResult result, Path csv) throws IOException {
    ReportModel model = ReportModel.fromJsonl(SinkConfig.jsonlBeside(csv));
    List<Path> written = model.isEmpty() ? List.of() : Report.write(model, settings.out(), false);
    List<WindowSummary> wholeRun = new ArrayList<>();
    for (String series : model.seriesNames()) {
      wholeRun.add(model.wholeRun(series, settings.slo()));
    }
    // a sweep's stages in the order of their load (4 before 16)
    wholeRun.sort(
        Comparator.comparing(WindowSummary::model)
            .thenComparing(s -> s.labels().get(Stages.LABEL), Comparator.nullsFirst(Stages.BY_LOAD))
            .thenComparing(WindowSummary::series));
    out.println();
    out.print(table(wholeRun, model.engines(), result));
    out.println();
    out.println("CSV:    " + csv);
    Path html = settings.out().resolve(Report.HTML);
    List<Path> charts = written.stream().filter(p -> p.toString().endsWith(".png")).toList();
    out.println("Report: " + html);
    for (Path chart : charts) {
      out.println("Chart:  " + chart);
    }
    if (settings.requestsOut() != null) {
      out.println("Requests: " + settings.requestsOut());
    }
    SloVerdict verdict = null;
    if (!settings.slo().isEmpty()) {
      Map<String, SloResult> judged = new LinkedHashMap<>();
      for (WindowSummary s : wholeRun) {
        RequestCounts r = s.requests();
        if (r.completed() + r.failed() + r.abandoned() > 0) {
          judged.put(s.series(), s.slo());
        }
      }
      verdict = SloVerdict.of(settings.slo(), judged);
      out.println(verdict.line());
    }
    return new Outcome(result, wholeRun, csv, html, charts, verdict);
  }

  /**
   * The seed's table, one row per series: TPOT in ms from merged window histograms (and the
   * engine's view of the series in {@code engines}, when the producer scraped one).
   */
  static String table(
      List<WindowSummary> wholeRun, Map<String, EngineRun> engines, RunResult result) {
    StringBuilder t = new StringBuilder(WholeRunTable.format(wholeRun, engines));
    t.append(
        String.format(
            Locale.ROOT,
            "Producer: %d events published in %.1f s; its own worst pause %.2f ms%s.%n",
            result.eventsPublished(),
            result.elapsed().toMillis() / 1000.0,
            result.clientPauseMaxUs() / 1000.0,
            result.lateAtSource() > 0 ? ", " + result.lateAtSource() + " late at source" : ""));
    if (result.engine() != null) {
      t.append(result.engine().line()).append(System.lineSeparator());
    }
    long asked = result.models().stream().mapToLong(ModelResult::asked).sum();
    if (asked > 0) {
      t.append(
          String.format(
              Locale.ROOT,
              "Trace: %d request(s) asked for the trace's output length, %d completed short of"
                  + " it.%n",
              asked,
              result.models().stream().mapToLong(ModelResult::endedShort).sum()));
    }
    return t.toString();
  }

  private static String field(String line, String name) {
    for (String part : line.split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    throw new IllegalStateException("backend line without " + name + ": " + line);
  }
}
