package io.tpotstream.app.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.app.run.Pipeline;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.sink.file.Csv;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.Promtool;
import io.tpotstream.testkit.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code tpot run --group-by concurrency} (simulator, producer, aggregator, sink on the test
 * broker) read as the monitoring people run reads it: {@code /metrics} scraped twice across windows
 * (promtool accepts both scrapes, every sample carries the model and concurrency labels, counters
 * and buckets never go down and add up to the CSV), every {@code tpot_} name the Grafana dashboard
 * and the alert rules query is served (the engine's too: the run scrapes the simulator's /metrics),
 * the CSV carries E2E and request TPOT, and Kafka Connect in standalone mode (its JSON converter
 * and file sink) writes every {@code tpot.metrics} record of the run to a file.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class MonitoringPipelineTest {
  private static final Duration WAIT = Duration.ofMinutes(3);

  @TempDir Path dir;

  @Test
  void liveRunServesTheDashboardsMetricsAndFeedsKafkaConnect(TestKafka kafka) throws Exception {
    Promtool.assumeInstalled();
    int port = freePort();
    Path out = dir.resolve("out");
    long startMs = System.currentTimeMillis();
    Pipeline.Settings settings =
        new Pipeline.Settings(
            simulatorUrl -> ConfigLoader.load(null, overrides(simulatorUrl), Map.of(), w -> {}),
            KafkaConnection.of(kafka.bootstrapServers()),
            out,
            Duration.ofSeconds(1),
            List.of("concurrency"),
            true,
            port,
            Progress.Mode.PLAIN,
            Duration.ofMinutes(1),
            // an easy SLO: the alerts' SLO families are served (they are absent without one)
            SloSpec.parse("tpot_p99=1h,error_rate=100%", null),
            null);
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    CompletableFuture<Pipeline.Outcome> run =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                PrintStream both = new PrintStream(printed, true, StandardCharsets.UTF_8);
                return new Pipeline(settings, both, both).run();
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });

    // two scrapes of the live sink, the second after a later window closed
    String[] first = new String[1];
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .failFast(run::isDone)
        .until(() -> (first[0] = scrapeOrNull(port)) != null && windows(first[0]) > 0);
    double firstEnd = latestWindowEnd(PromText.parse(first[0]));
    String[] second = new String[1];
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .failFast(run::isDone)
        .until(
            () ->
                (second[0] = scrapeOrNull(port)) != null
                    && latestWindowEnd(PromText.parse(second[0])) > firstEnd
                    // a window with the engine's view beside the client's (one scrape a window)
                    && second[0].contains("tpot_window_outside_engine_seconds{"));
    Pipeline.Outcome outcome = run.get(3, TimeUnit.MINUTES);

    Promtool.assertMetricsPass(first[0]);
    Promtool.assertMetricsPass(second[0]);
    PromText before = PromText.parse(first[0]);
    PromText after = PromText.parse(second[0]);
    for (PromText.Sample s : after.samples) {
      if (s.name().startsWith("tpot_dropped_windows_")) {
        // the sink's own count of windows left out of /metrics, by reason: not a series'
        assertTrue(s.labels().containsKey("reason"), s.toString());
        if (s.name().equals("tpot_dropped_windows_total")) {
          assertEquals(0.0, s.value(), s.toString());
        }
        continue;
      }
      assertEquals("2", s.labels().get("concurrency"), "a concurrency label on " + s);
      assertTrue(s.labels().containsKey("model"), "a model label on " + s);
    }
    Map<String, Double> later = after.byKey();
    for (Map.Entry<String, Double> earlier : before.byKey().entrySet()) {
      if (!earlier.getKey().startsWith("tpot_window_")) {
        Double value = later.get(earlier.getKey());
        assertTrue(
            value != null && value >= earlier.getValue(),
            earlier.getKey() + " went from " + earlier.getValue() + " to " + value);
      }
    }

    Set<String> served = new TreeSet<>();
    after.samples.forEach(s -> served.add(s.name()));
    Set<String> queried = new TreeSet<>();
    for (String expr : DeployFiles.dashboardExpressions()) {
      queried.addAll(DeployFiles.tpotNames(expr));
    }
    assertTrue(queried.size() >= 15, "dashboard names: " + queried);
    for (String file : List.of("tpot-alerts.yml", "tpot-alerts.test.yml")) {
      queried.addAll(DeployFiles.tpotNames(Files.readString(DeployFiles.PROMETHEUS.resolve(file))));
    }
    queried.removeIf(name -> name.equals("tpot_sink")); // the scrape job's name
    Set<String> missing = new TreeSet<>(queried);
    missing.removeAll(served);
    assertEquals(Set.of(), missing, "queried by the dashboard or the alerts but not served");

    // the CSV: E2E and request TPOT beside TPOT, counts that equal the producer's and /metrics'
    List<Map<String, String>> rows = csvRows(outcome.csv(), startMs);
    long completed = 0;
    for (Map<String, String> row : rows) {
      completed += Long.parseLong(row.get("requests_completed"));
      if (!row.get("requests_completed").equals("0")) {
        for (String column :
            List.of(
                "e2e_p50_ms",
                "e2e_p90_ms",
                "e2e_p99_ms",
                "e2e_max_ms",
                "request_tpot_p50_ms",
                "request_tpot_p90_ms",
                "request_tpot_p99_ms",
                "request_tpot_max_ms")) {
          assertFalse(row.get(column).isEmpty(), column + " in " + row);
        }
        assertTrue(
            new BigDecimal(row.get("e2e_max_ms")).compareTo(new BigDecimal(row.get("e2e_p50_ms")))
                >= 0,
            "E2E max is at least its median: " + row);
      }
    }
    assertEquals(
        outcome.producer().models().stream().mapToLong(ModelResult::completed).sum(), completed);
    for (String model : List.of("model-a", "model-b")) {
      Map<String, String> labels = Map.of("model", model, "concurrency", "2");
      double end = after.value("tpot_window_end_timestamp_seconds", labels);
      long gaps =
          rows.stream()
              .filter(
                  r -> r.get("model").equals(model) && Long.parseLong(r.get("ts")) <= end * 1000)
              .mapToLong(r -> Long.parseLong(r.get("tpot_count")))
              .sum();
      assertEquals((double) gaps, after.value("tpot_seconds_count", labels), model);
      assertEquals(
          (double) gaps, after.value("tpot_seconds_bucket", with(labels, "le", "+Inf")), model);
    }

    kafkaConnectWritesEveryRecordOfTheRun(kafka, rows);
  }

  /**
   * Kafka Connect standalone, started as users start it (ConnectStandalone with a worker and a
   * connector properties file), reads {@code tpot.metrics} read_committed with the JSON converter
   * and its file sink writes one line per record: every row of the run's CSV arrives, field for
   * field.
   */
  private void kafkaConnectWritesEveryRecordOfTheRun(
      TestKafka kafka, List<Map<String, String>> rows) throws Exception {
    Path sinkFile = dir.resolve("connect/tpot-metrics.txt");
    Files.createDirectories(sinkFile.getParent());
    // the two files docs/sink.md shows, with this test's broker, paths and a free REST port
    List<Properties> documented = DeployFiles.connectProperties();
    Properties workerProps = documented.get(0);
    workerProps.setProperty("bootstrap.servers", kafka.bootstrapServers());
    workerProps.setProperty(
        "offset.storage.file.filename", dir.resolve("connect/offsets").toString());
    workerProps.setProperty(
        "plugin.path", Path.of("target/connect-plugins").toAbsolutePath().toString());
    workerProps.setProperty("listeners", "http://127.0.0.1:0");
    Properties connectorProps = documented.get(1);
    assertEquals(Topics.METRICS, connectorProps.getProperty("topics"));
    connectorProps.setProperty("file", sinkFile.toString());
    Path worker = dir.resolve("connect/worker.properties");
    Path connector = dir.resolve("connect/tpot-metrics-file.properties");
    try (Writer w = Files.newBufferedWriter(worker);
        Writer c = Files.newBufferedWriter(connector)) {
      workerProps.store(w, "worker");
      connectorProps.store(c, "connector");
    }
    Path log = dir.resolve("connect/connect.log");
    Process connect =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.connect.cli.ConnectStandalone",
                worker.toString(),
                connector.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      Map<String, Map<String, String>> expected = new HashMap<>();
      for (Map<String, String> row : rows) {
        expected.put(row.get("series") + "@" + row.get("ts"), row);
      }
      Map<String, Map<String, String>> written = new HashMap<>();
      try {
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(500))
            .failFast("Kafka Connect exited", () -> !connect.isAlive())
            .until(
                () -> {
                  written.clear();
                  if (Files.exists(sinkFile)) {
                    for (String line : Files.readAllLines(sinkFile)) {
                      Map<String, String> record = connectRecord(line);
                      written.put(record.get("series") + "@" + record.get("ts"), record);
                    }
                  }
                  return written.keySet().containsAll(expected.keySet());
                });
      } catch (RuntimeException e) {
        List<String> logged = Files.readAllLines(log);
        throw new AssertionError(
            "Kafka Connect did not write every record of the run ("
                + written.size()
                + " written); the end of its log:\n"
                + String.join("\n", logged.subList(Math.max(0, logged.size() - 40), logged.size())),
            e);
      }
      for (Map.Entry<String, Map<String, String>> row : expected.entrySet()) {
        Map<String, String> record = written.get(row.getKey());
        for (Map.Entry<String, String> cell : row.getValue().entrySet()) {
          String value = record.get(cell.getKey());
          if (cell.getValue().isEmpty()) {
            assertEquals(null, value, cell.getKey() + " is left out of the JSON when empty");
          } else if (cell.getValue().matches("-?[0-9.]+")) {
            assertEquals(
                0,
                new BigDecimal(cell.getValue()).compareTo(new BigDecimal(value)),
                row.getKey() + " " + cell.getKey() + ": " + cell.getValue() + " vs " + value);
          } else {
            assertEquals(cell.getValue(), value, row.getKey() + " " + cell.getKey());
          }
        }
      }
    } finally {
      connect.destroy();
      if (!connect.waitFor(30, TimeUnit.SECONDS)) {
        connect.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** The file sink's line for a schemaless JSON value: {@code {k=v, k=v}} (a Java map). */
  private static Map<String, String> connectRecord(String line) {
    Map<String, String> fields = new HashMap<>();
    String body = line.substring(1, line.length() - 1);
    for (String field : body.split(", (?=[a-z0-9_]+=)")) {
      int eq = field.indexOf('=');
      fields.put(field.substring(0, eq), field.substring(eq + 1));
    }
    return fields;
  }

  /** The CSV's rows for windows that ended after {@code sinceMs}, as column to cell. */
  private static List<Map<String, String>> csvRows(Path csv, long sinceMs) throws IOException {
    List<String> lines = Files.readAllLines(csv);
    List<String> header = Csv.parse(lines.get(0));
    for (String column :
        List.of("e2e_p50_ms", "e2e_p90_ms", "e2e_p99_ms", "e2e_max_ms", "request_tpot_p90_ms")) {
      assertTrue(header.contains(column), column + " in " + header);
    }
    List<Map<String, String>> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      List<String> cells = Csv.parse(line);
      Map<String, String> row = new LinkedHashMap<>();
      for (int i = 0; i < header.size(); i++) {
        row.put(header.get(i), cells.get(i));
      }
      if (Long.parseLong(row.get("ts")) > sinceMs) {
        rows.add(row);
      }
    }
    assertTrue(rows.size() >= 4, "rows of this run: " + rows.size());
    return rows;
  }

  private static Map<String, String> overrides(String simulatorUrl) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("base_url", simulatorUrl);
    o.put("models", "model-a,model-b");
    o.put("concurrency", "2");
    o.put("duration", "6s");
    o.put("max_tokens", "40");
    o.put("api_key", "demo");
    o.put("warmup", "0");
    // the simulator's own /metrics: the dashboard's engine panels and the engine alert are served
    o.put("engine_metrics", URI.create(simulatorUrl).resolve("/metrics").toString());
    return o;
  }

  private static double windows(String scrape) {
    return PromText.parse(scrape).samples.stream()
        .filter(s -> s.name().equals("tpot_windows_total"))
        .mapToDouble(PromText.Sample::value)
        .sum();
  }

  private static double latestWindowEnd(PromText scrape) {
    return scrape.samples.stream()
        .filter(s -> s.name().equals("tpot_window_end_timestamp_seconds"))
        .mapToDouble(PromText.Sample::value)
        .max()
        .orElse(0);
  }

  private static String scrapeOrNull(int port) throws InterruptedException {
    try {
      HttpResponse<String> response =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : null;
    } catch (IOException e) {
      return null; // not serving yet
    }
  }

  private static Map<String, String> with(Map<String, String> labels, String name, String value) {
    Map<String, String> all = new HashMap<>(labels);
    all.put(name, value);
    return all;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
