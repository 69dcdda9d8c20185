package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.app.Logging;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.LogCapture;
import io.tpotstream.testkit.TestKafka;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tpot produce} and {@code tpot models} from the command line: output, exit codes, no key.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ProduceCommandTest {
  static final String KEY = "sk-cli-SECRET-7";
  static Simulator simulator;
  @TempDir Path dir;

  @BeforeAll
  static void start() {
    simulator =
        Simulator.start(
            SimulatorConfig.defaults().withPort(0).withSeed(2L).withApiKey(KEY).withEventLoops(1));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  private Path seedConfig(String key) throws Exception {
    Path file = dir.resolve("config.json");
    Files.writeString(
        file,
        """
        {"base_url": "%s", "api_key": "%s", "models": ["model-a", "model-b"], "concurrency": 4,
         "total_requests": 3, "max_tokens": 40, "prompt": "hi", "timeout": 30}
        """
            .formatted(simulator.baseUrl(), key));
    return file;
  }

  /** {@code tpot produce} with the seed config and {@code bootstrap}, then {@code more}. */
  private TpotCli.Result produce(String bootstrap, String... more) throws Exception {
    return tpot(
        List.of(
            "produce", "--config", seedConfig(KEY).toString(), "--bootstrap-servers", bootstrap),
        more);
  }

  @Test
  void produceWithTheSeedConfigPrintsTheTableAndNeverTheKey(TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("cli");
    TpotCli.Result r = produce(kafka.bootstrapServers(), "--topic", topic, "--label", "target=sim");
    assertEquals(0, r.exit(), r.err());
    String[] lines = r.out().split("\n");
    assertTrue(lines[0].startsWith("TPOT per model in ms (run "), r.out());
    assertTrue(lines[1].matches("\\s+model-a\\s+model-b"), lines[1]);
    assertTrue(lines[2].matches("samples\\s+117\\s+117"), r.out());
    assertTrue(r.outHasLine("requests\\s+3\\s+3"), r.out());
    assertTrue(r.outHasLine("error rate\\s+0.00%\\s+0.00%"), r.out());
    assertFalse(r.out().contains(KEY));
    assertFalse(r.err().contains(KEY));

    long records = 0;
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(TestKafka.uniqueName("cli")))) {
      consumer.subscribe(List.of(topic));
      for (int i = 0; i < 20; i++) {
        for (ConsumerRecord<String, byte[]> rec : consumer.poll(Duration.ofMillis(300))) {
          String value = new String(rec.value(), StandardCharsets.UTF_8);
          assertFalse(value.contains(KEY), value);
          if (!value.contains("\"heartbeat\"")) {
            assertTrue(
                value.contains("\"labels\":{\"concurrency\":\"4\",\"target\":\"sim\"}"), value);
          }
          records++;
        }
      }
    }
    // 6 requests × (start + 40 tokens + end), plus heartbeats
    assertTrue(records >= 6 * 42, "records: " + records);
  }

  @Test
  void quietProduceLogsNoInformationalLine(TestKafka kafka) throws Exception {
    try (LogCapture logs = LogCapture.begin()) {
      // the topic is new: without -q, "created topic ..." and the run's start line are INFO lines
      TpotCli.Result r =
          produce(kafka.bootstrapServers(), "--topic", TestKafka.uniqueName("quiet"), "-q");
      assertEquals(0, r.exit(), r.err());
      assertTrue(r.outHasLine("requests\\s+3\\s+3"), r.out());
      assertEquals(
          List.of(),
          logs.lines().stream().filter(l -> l.startsWith("io.tpotstream")).toList(),
          "tpot's own log lines with -q");
    } finally {
      System.clearProperty(Logging.LEVEL_PROPERTY); // -q set it for this JVM
    }
  }

  @Test
  void anSloOverNoSamplesIsMissedWhenEveryRequestFailsAndExits3(TestKafka kafka) throws Exception {
    TpotCli.Result r =
        tpot(
            "produce",
            "--config",
            seedConfig("sk-wrong-SECRET").toString(),
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            TestKafka.uniqueName("nodata"),
            "--models",
            "model-a",
            "--total-requests",
            "6",
            "--warmup",
            "0",
            "--slo",
            "tpot_p99=0.001ms");
    assertEquals(3, r.exit(), r.out() + r.err());
    // the 401 stops the run after its first requests (FailFast): at most twice the concurrency
    assertTrue(r.outHasLine("requests\\s+[1-8]"), r.out());
    assertTrue(r.outHasLine("error rate\\s+100.00%"), r.out());
    List<String> lines = r.out().lines().toList();
    assertEquals("SLO failed: tpot_p99: no data, 0 samples (model-a)", lines.get(lines.size() - 1));
    assertFalse(r.out().contains("SLO met"), r.out());
  }

  @Test
  void aRefusedKeyStopsTheRunWithinTwiceItsConcurrencyAndExits2(TestKafka kafka) throws Exception {
    simulator.truth().reset();
    TpotCli.Result r =
        tpot(
            "produce",
            "--config",
            seedConfig("sk-wrong-SECRET").toString(),
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            TestKafka.uniqueName("refused"),
            "--models",
            "model-a",
            "--total-requests",
            "50",
            "--concurrency",
            "4");
    assertEquals(2, r.exit(), r.out() + r.err());
    JsonNode refused =
        Json.MAPPER.readTree(simulator.truth().toJson()).path("models").path("model-a");
    long sent = refused.path("requests").asLong();
    assertTrue(sent >= 1 && sent <= 8, "requests that reached the endpoint: " + refused);
    String line =
        r.err().lines().filter(l -> l.startsWith("tpot produce: ")).findFirst().orElse("");
    assertTrue(
        line.startsWith("tpot produce: stopped after the first requests: HTTP 401 from POST "),
        r.err());
    assertTrue(line.contains("check the API key"), line);
    assertFalse(r.err().contains("sk-wrong-SECRET"), r.err());
  }

  @Test
  void aMisspelledModelStopsAloneTheOtherIsMeasuredInFullAndTheRunExits2(TestKafka kafka)
      throws Exception {
    simulator.truth().reset();
    TpotCli.Result r =
        tpot(
            "produce",
            "--config",
            seedConfig(KEY).toString(),
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            TestKafka.uniqueName("misspelled"),
            "--models",
            "model-a,model-aa",
            "--total-requests",
            "10",
            "--concurrency",
            "4");
    assertEquals(2, r.exit(), r.out() + r.err());
    JsonNode a = Json.MAPPER.readTree(simulator.truth().toJson()).path("models").path("model-a");
    assertEquals(10, a.path("requests").asLong(), "model-a measured in full: " + a);
    String end = r.err().lines().filter(l -> l.startsWith("tpot produce: ")).findFirst().orElse("");
    assertTrue(
        end.startsWith(
            "tpot produce: model model-aa stopped after its first requests: HTTP 404 from POST "
                + simulator.baseUrl()),
        r.err());
    // it names the model, the URL and the server's words
    assertTrue(end.contains("server said: The model 'model-aa' does not exist"), end);
    assertTrue(end.endsWith("(the other models were measured)"), end);
  }

  @Test
  void aServerThatIsDownIsNamedWithItsAddressAndCauseInTheLastLineAndEveryRequestRecord(
      TestKafka kafka) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    Path requests = dir.resolve("requests.jsonl");
    TpotCli.Result r =
        tpot(
            "produce",
            "--base-url",
            "http://127.0.0.1:" + port,
            "--models",
            "model-a",
            "--total-requests",
            "3",
            "--warmup",
            "0",
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            TestKafka.uniqueName("down"),
            "--requests-out",
            requests.toString());

    assertEquals(2, r.exit(), r.out() + r.err());
    String why =
        "cannot connect to 127.0.0.1:"
            + port
            + " (connection refused): check base_url (host and port) and that the server is up"
            + " (no proxy in use)";
    List<String> err = r.err().lines().toList();
    assertEquals(
        "tpot produce: model-a: all 3 requests failed ({connection=3}): nothing was measured;"
            + " the last: "
            + why,
        err.get(err.size() - 1));
    List<String> records = Files.readAllLines(requests);
    assertEquals(3, records.size());
    for (String record : records) {
      JsonNode json = Json.MAPPER.readTree(record);
      assertEquals("connection", json.path("errorClass").asText(), record);
      assertEquals(why, json.path("message").asText(), record);
    }
  }

  @Test
  void aBadConfigIsOneLineAndExitCode2() {
    Path missing = dir.resolve("missing.json");
    TpotCli.Result r = tpot("produce", "--config", missing.toString());
    assertEquals(2, r.exit());
    assertEquals(
        "tpot produce: config file " + missing + " not found: check --config", r.err().strip());
    TpotCli.Result bad =
        tpot("produce", "--base-url", "http://h", "--models", "m", "--concurrency", "0");
    assertEquals(2, bad.exit());
    assertEquals(
        "tpot produce: config key 'concurrency': must be a positive integer, got 0",
        bad.err().strip());
  }

  @Test
  void aMistypedConfigKeyStopsTheRunWithDidYouMean() throws Exception {
    Path file = dir.resolve("typo.json");
    Files.writeString(file, "{\"base_url\": \"http://h\", \"models\": [\"m\"], \"concurency\": 3}");
    for (String command : List.of("produce", "run")) {
      TpotCli.Result r = tpot(command, "--config", file.toString());
      assertEquals(2, r.exit(), command);
      assertEquals(
          "tpot "
              + command
              + ": config key 'concurency' in "
              + file
              + " is not known: did you mean 'concurrency'? A key of another tool: prefix it with"
              + " x-, or set \"x-allow-unknown\": true",
          r.err().strip());
    }
  }

  @Test
  void unreachableKafkaIsOneLineAndExitCode2() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    TpotCli.Result r = produce("127.0.0.1:" + port, "--kafka-timeout", "2s");
    assertEquals(2, r.exit());
    assertTrue(
        r.err().startsWith("tpot produce: no Kafka broker at 127.0.0.1:" + port + " "), r.err());
    assertEquals(1, r.err().strip().lines().count(), r.err());
  }

  @Test
  void modelsListsTheIdsAndExplainsAWrongKey() throws Exception {
    TpotCli.Result ok = tpot("models", "--config", seedConfig(KEY).toString());
    assertEquals(0, ok.exit(), ok.err());
    assertEquals(List.of("model-a", "model-b", "model-c"), ok.out().lines().toList());

    TpotCli.Result wrong =
        tpot("models", "--base-url", simulator.baseUrl(), "--set", "api_key=sk-wrong-SECRET");
    assertEquals(2, wrong.exit());
    assertTrue(
        wrong
            .err()
            .startsWith(
                "tpot models: http_401: HTTP 401 from GET " + simulator.baseUrl() + "/v1/models"),
        wrong.err());
    assertTrue(wrong.err().contains("check the API key"), wrong.err());
    assertFalse(wrong.err().contains("sk-wrong-SECRET"));
  }
}
