package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.config.ConfigException;
import io.tpotstream.producer.engine.EngineMapping;
import io.tpotstream.producer.engine.EngineSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/**
 * {@code --engine-metrics}, {@code --engine-metrics-interval} and {@code --engine-mapping} in
 * {@code produce}, {@code run} and {@code proxy}: the same settings from the same flags; {@code
 * run} and {@code demo} fit the interval to their window; mistakes end in one line.
 */
class EngineMetricsFlagsTest {
  private static final String[] BASE = {"--base-url", "http://127.0.0.1:8000", "--models", "m"};

  private static Object command(String... args) {
    return Tpot.commandLine().parseArgs(args).subcommand().commandSpec().userObject();
  }

  private static String[] args(String command, String... more) {
    List<String> all = new java.util.ArrayList<>(List.of(command));
    all.addAll(List.of(BASE));
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  @Test
  void produceReadsTheFlagsAsItsConfigKeys() {
    ProduceCommand produce =
        (ProduceCommand)
            command(
                args(
                    "produce",
                    "--engine-metrics",
                    "http://127.0.0.1:8000/metrics,http://10.0.0.2:8000",
                    "--engine-metrics-interval",
                    "2s",
                    "--engine-mapping",
                    "vllm"));
    Map<String, String> flags = new LinkedHashMap<>();
    produce.engineMetrics.putInto(flags);
    assertEquals(
        Map.of(
            "engine_metrics", "http://127.0.0.1:8000/metrics,http://10.0.0.2:8000",
            "engine_metrics_interval", "2s",
            "engine_mapping", "vllm"),
        flags);
    EngineSettings settings = produce.configOptions.load(flags).engineMetrics();
    assertEquals(
        new EngineSettings(
            List.of(
                new EngineSettings.Target(
                    URI.create("http://127.0.0.1:8000/metrics"), null, EngineMapping.VLLM),
                new EngineSettings.Target(
                    URI.create("http://10.0.0.2:8000/metrics"), null, EngineMapping.VLLM)),
            Duration.ofSeconds(2),
            true),
        settings);
  }

  @Test
  void aMappingFileFlagIsReadFromTheWorkingDirectory() {
    ProduceCommand produce =
        (ProduceCommand)
            command(
                args(
                    "produce",
                    "--engine-metrics",
                    "http://h/metrics",
                    "--engine-mapping",
                    "m.json"));
    Map<String, String> flags = new LinkedHashMap<>();
    produce.engineMetrics.putInto(flags);
    assertEquals(Path.of("m.json").toAbsolutePath().toString(), flags.get("engine_mapping"));
  }

  @Test
  void runScrapesOncePerWindowWhenItsWindowIsShorterThanTheDefault() {
    RunCommand run =
        (RunCommand)
            command(args("run", "--window", "2s", "--engine-metrics", "http://h:8000/metrics"));
    Map<String, String> flags = new LinkedHashMap<>();
    run.engineMetrics.putInto(flags);
    EngineSettings fitted =
        run.runOptions.withEngineMetricsFitted(run.configOptions.load(flags)).engineMetrics();
    assertEquals(Duration.ofSeconds(2), fitted.interval());

    RunCommand tooLong =
        (RunCommand)
            command(
                args(
                    "run",
                    "--window",
                    "5s",
                    "--engine-metrics",
                    "http://h:8000/metrics",
                    "--engine-metrics-interval",
                    "10s"));
    Map<String, String> more = new LinkedHashMap<>();
    tooLong.engineMetrics.putInto(more);
    assertEquals(
        "--engine-metrics-interval (10s) is longer than --window 5s: each window needs a scrape;"
            + " make it at most the window, ideally a divisor of it",
        assertThrows(
                ConfigException.class,
                () -> tooLong.runOptions.withEngineMetricsFitted(tooLong.configOptions.load(more)))
            .getMessage());
  }

  @Test
  void theDemoScrapesItsSimulatorOncePerWindowAsRunDoes() {
    EngineSettings twoSeconds =
        ((DemoCommand) command("demo", "--window", "2s"))
            .config("http://127.0.0.1:9")
            .engineMetrics();
    assertEquals(
        List.of(URI.create("http://127.0.0.1:9/metrics")),
        twoSeconds.targets().stream().map(EngineSettings.Target::url).toList());
    assertEquals(Duration.ofSeconds(2), twoSeconds.interval());
    assertEquals(
        EngineSettings.DEFAULT_INTERVAL,
        ((DemoCommand) command("demo")).config("http://127.0.0.1:9").engineMetrics().interval());
    // no engine is scraped more than once a second: windows shorter than that go without
    assertEquals(
        EngineSettings.NONE,
        ((DemoCommand) command("demo", "--window", "500ms"))
            .config("http://127.0.0.1:9")
            .engineMetrics());
  }

  @Test
  void theProxyReadsTheSameFlagsIntoItsConfig() {
    ProxyCommand proxy =
        (ProxyCommand)
            command(
                "proxy",
                "--listen",
                "0",
                "--upstream",
                "http://vllm:8000",
                "--engine-metrics",
                "http://vllm:8000/metrics",
                "--engine-mapping",
                "sglang");
    EngineSettings settings = proxy.config().engineMetrics();
    assertEquals(EngineMapping.SGLANG, settings.targets().get(0).mapping());
    assertEquals(EngineSettings.DEFAULT_INTERVAL, settings.interval());

    ProxyCommand bad =
        (ProxyCommand)
            command(
                "proxy",
                "--listen",
                "0",
                "--upstream",
                "http://vllm:8000",
                "--engine-metrics",
                "http://vllm:8000/metrics",
                "--engine-mapping",
                "no-such.json");
    assertEquals(
        "--engine-mapping: 'no-such.json' is neither vllm, sglang, tgi nor auto, and no such file (a"
            + " mapping file: docs/producer.md, \"The engine's own view\")",
        assertThrows(ParameterException.class, bad::config).getMessage());
  }

  @Test
  void aBadUrlStopsProduceInOneLineBeforeAnyRequest() {
    TpotCli.Result result =
        TpotCli.tpot(args("produce", "--engine-metrics", "ftp://vllm/metrics?key=s3cret"));
    assertEquals(2, result.exit());
    assertEquals(
        "tpot produce: config key 'engine_metrics': 'ftp://vllm/metrics?key=***' must be an"
            + " http:// or https:// URL with a host, e.g. http://127.0.0.1:8000/metrics",
        result.err().strip());
    assertTrue(!result.err().contains("s3cret"));
  }
}
