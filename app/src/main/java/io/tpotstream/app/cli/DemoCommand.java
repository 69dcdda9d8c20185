package io.tpotstream.app.cli;

import io.tpotstream.app.run.Pipeline;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.engine.EngineSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code tpot demo}: {@code tpot run} against the built-in simulator with the seed article's setup
 * (model-a, model-b, model-c; concurrency 10, 200 requests per model, max_tokens 256).
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    header = "The whole pipeline on an embedded broker against the built-in simulator.",
    description = {
      "Runs the seed article's benchmark (model-a, model-b, model-c; concurrency 10; 200 requests"
          + " per model; max_tokens 256) against the built-in simulator, through Kafka, the"
          + " aggregator and the sink, and prints the whole run's TPOT table. Needs no running"
          + " service and leaves nothing running. Its files go into --out (summaries.csv,"
          + " summaries.jsonl, report.html, the PNG charts) and are replaced."
    })
final class DemoCommand implements Callable<Integer> {
  /** The prompt of the seed article's script. */
  static final String PROMPT = "Write a short story about a robot learning to paint.";

  /** Its own --out, beside (not into) the files a tpot sink writes by default. */
  @Mixin RunOptions runOptions = new RunOptions(Path.of("out", "demo"));

  @Mixin TrafficOptions traffic;
  @Mixin SloOptions sloOptions;

  @Mixin KafkaOptions kafka;

  @Option(
      names = "--requests",
      defaultValue = "200",
      description = "Requests per model (default: ${DEFAULT-VALUE}).")
  int requests;

  @Option(
      names = "--concurrency",
      defaultValue = "10",
      description = "Concurrent streams (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--max-tokens",
      defaultValue = "256",
      description = "Output tokens per request (default: ${DEFAULT-VALUE}).")
  int maxTokens;

  @Option(
      names = "--duration",
      description = "Run for this long instead of a number of requests (e.g. 60s).")
  String duration;

  @Option(
      names = "--warmup",
      description =
          "local (the default: the JIT warms against a loopback server), 10s or 50req to warm"
              + " the simulator's connections too (left out of every statistic), or 0 for none.")
  String warmup;

  @Override
  public Integer call() throws Exception {
    clearOutputs(runOptions.outDir.out);
    SloSpec slo = sloOptions.spec();
    // the config is checked now, before the broker starts (a window its engine scrapes do not
    // divide is warned about once); the simulator's address comes later
    boolean sweep =
        runOptions.withEngineMetricsFitted(config("http://127.0.0.1:1")).sweep() != null;
    Pipeline.Settings settings =
        runOptions.pipeline(this::config, sweep, true, kafka, slo, traffic.requestsOut.file);
    Pipeline.Outcome outcome = new Pipeline(settings, System.out, System.err).run();
    boolean bounded = !outcome.producer().stoppedEarly();
    return outcome.verdict() == null || !bounded ? 0 : outcome.verdict().exitCode();
  }

  /**
   * The demo's producer config against the simulator at {@code simulatorUrl}, its engine scrapes
   * fitted to the window as {@code tpot run}'s are ({@link EngineSettings#forWindow}).
   */
  ProducerConfig config(String simulatorUrl) {
    ProducerConfig config = ProducerConfigOptions.loadDemo(overrides(simulatorUrl));
    return config.withEngineMetrics(config.engineMetrics().forWindow(runOptions.windowSize()));
  }

  Map<String, String> overrides(String simulatorUrl) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("base_url", simulatorUrl);
    o.put("models", "model-a,model-b,model-c");
    o.put("concurrency", Integer.toString(concurrency));
    if (traffic.trace == null) {
      // a trace gives the requests, their lengths and their prompts
      o.put("total_requests", Integer.toString(requests));
      o.put("max_tokens", Integer.toString(maxTokens));
      o.put("prompt", PROMPT);
    }
    o.put("timeout", "60");
    o.put("api_key", "demo");
    // the simulator plays an engine too: its /metrics in vLLM's names, beside the client's view
    // (engines are scraped at most once a second: windows shorter than that go without)
    if (runOptions.windowSize().compareTo(EngineSettings.MIN_INTERVAL) >= 0) {
      o.put("engine_metrics", java.net.URI.create(simulatorUrl).resolve("/metrics").toString());
    }
    if (duration != null) {
      o.put("duration", duration);
    }
    traffic.putInto(o);
    if (warmup != null) {
      o.put("warmup", warmup);
    }
    return o;
  }

  /** The demo's files from an earlier demo: a new embedded broker starts a new run. */
  static void clearOutputs(Path out) throws IOException {
    // a sink still writing them keeps them (and stops the demo, naming it)
    Pipeline.checkOutputsFree(out);
    for (String name :
        List.of(
            "summaries.csv",
            "summaries.jsonl",
            "report.html",
            "tpot.png",
            "ttft.png",
            "error-rate.png",
            "tokens-per-second.png",
            "knee.png")) {
      Files.deleteIfExists(out.resolve(name));
    }
  }
}
