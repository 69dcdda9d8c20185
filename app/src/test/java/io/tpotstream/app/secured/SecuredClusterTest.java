package io.tpotstream.app.secured;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.app.cli.Tpot;
import io.tpotstream.app.cli.TpotCli;
import io.tpotstream.archive.ArchiveReader;
import io.tpotstream.archive.ArchivedRecord;
import io.tpotstream.broker.LocalKafka;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * tpot on a cluster secured as users run theirs: SASL/PLAIN, ACLs on, deny by default, and a user
 * that holds exactly the ACLs docs/kafka.md lists. Every command works with that user's properties
 * file; a wrong password or a missing ACL ends in one line that names the user, the file, the
 * resource and the operation.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("slow")
class SecuredClusterTest {
  static LocalKafka kafka;
  static Simulator simulator;
  @TempDir static Path dir;
  static Path client;
  static Path clientWithBootstrap;
  static Path wrongPassword;

  @BeforeAll
  static void start() throws Exception {
    kafka = SecuredCluster.broker();
    simulator =
        Simulator.start(SimulatorConfig.defaults().withPort(0).withSeed(3L).withEventLoops(1));
    client =
        SecuredCluster.propertiesFile(dir, "client.properties", SecuredCluster.PASSWORD, false);
    clientWithBootstrap =
        SecuredCluster.propertiesFile(dir, "bootstrap.properties", SecuredCluster.PASSWORD, true);
    wrongPassword =
        SecuredCluster.propertiesFile(dir, "wrong.properties", "not-the-password", false);
  }

  @AfterAll
  static void stop() {
    if (simulator != null) {
      simulator.close();
    }
  }

  /**
   * {@code tpot COMMAND --config FILE --bootstrap-server BOOTSTRAP --kafka-config KAFKA_CONFIG
   * MORE}, FILE a producer config of {@code requests} requests.
   */
  static TpotCli.Result withConfig(
      String command, int requests, String bootstrap, Path kafkaConfig, String... more)
      throws IOException {
    return tpot(
        List.of(
            command,
            "--config",
            producerConfig(requests).toString(),
            "--bootstrap-server",
            bootstrap,
            "--kafka-config",
            kafkaConfig.toString()),
        more);
  }

  /** {@code tpot ARGS} in a JVM of its own (commands that run until stopped). */
  static Process tpotProcess(String name, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Tpot.class.getName());
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectOutput(dir.resolve(name + ".out").toFile())
        .redirectError(dir.resolve(name + ".err").toFile())
        .start();
  }

  static Path producerConfig(int requests) throws IOException {
    Path file = dir.resolve("producer-" + requests + ".json");
    Files.writeString(
        file,
        """
        {"base_url": "%s", "api_key": "sim", "models": ["model-a", "model-b"], "concurrency": 4,
         "total_requests": %d, "max_tokens": 30, "prompt": "hi", "timeout": 30, "warmup": "0"}
        """
            .formatted(simulator.baseUrl(), requests));
    return file;
  }

  /** The CSV's rows (header first). */
  static List<String> csv(Path file) throws IOException {
    return Files.exists(file) ? Files.readAllLines(file) : List.of();
  }

  /** Sum of one numeric column over the data rows. */
  static long sum(List<String> csv, String column) {
    int index = List.of(csv.get(0).split(",")).indexOf(column);
    return csv.stream().skip(1).mapToLong(row -> Long.parseLong(row.split(",")[index])).sum();
  }

  static Set<String> windows(List<String> csv) {
    Set<String> starts = new HashSet<>();
    csv.stream().skip(1).forEach(row -> starts.add(row.split(",")[0] + " " + row.split(",")[3]));
    return starts;
  }

  @Test
  @Order(1)
  void theDocumentedAclsAreEnoughToProduceAggregateSinkExportAndReplay() throws Exception {
    String b = kafka.bootstrapServers();
    TpotCli.Result produced = withConfig("produce", 5, b, client);
    assertEquals(0, produced.exit(), produced.err());

    Path csvFile = dir.resolve("pipeline").resolve("summaries.csv");
    Process aggregate =
        tpotProcess(
            "aggregate",
            "aggregate",
            "--bootstrap-servers",
            b,
            "--command-config",
            client.toString(),
            "--window",
            "1s");
    Process sink =
        tpotProcess(
            "sink",
            "sink",
            "--kafka-config",
            clientWithBootstrap.toString(),
            "--csv",
            csvFile.toString(),
            "--no-prometheus");
    try {
      // 5 requests per model, every one in exactly one window
      try {
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> csv(csvFile).size() > 1 && sum(csv(csvFile), "requests_completed") == 10);
      } catch (ConditionTimeoutException e) {
        throw new AssertionError(
            "CSV "
                + csv(csvFile)
                + "\naggregate: "
                + Files.readString(dir.resolve("aggregate.err"))
                + "\nsink: "
                + Files.readString(dir.resolve("sink.err")),
            e);
      }
      assertTrue(aggregate.isAlive(), "the aggregator runs");
      assertTrue(sink.isAlive(), "the sink runs");
    } finally {
      aggregate.destroy();
      sink.destroy();
      aggregate.waitFor(30, TimeUnit.SECONDS);
      sink.waitFor(30, TimeUnit.SECONDS);
    }
    assertEquals(10, sum(csv(csvFile), "requests_completed"));

    Path archive = dir.resolve("events.jsonl");
    TpotCli.Result exported =
        tpot(
            "export",
            "--bootstrap-server",
            b,
            "--kafka-config",
            client.toString(),
            "--out",
            archive.toString());
    assertEquals(0, exported.exit(), exported.err());
    List<ArchivedRecord> records = ArchiveReader.readInReplayOrder(archive, (l, r) -> {});
    assertEquals(SecuredCluster.records("tpot.token-events"), records.size());

    TpotCli.Result replayed =
        tpot(
            "replay",
            "--bootstrap-server",
            b,
            "--kafka-config",
            client.toString(),
            "--file",
            archive.toString(),
            "--topic",
            "tpot.replayed");
    assertEquals(0, replayed.exit(), replayed.err());
    Set<String> heartbeats = new HashSet<>();
    long events = 0;
    for (ArchivedRecord r : records) {
      if (r.isHeartbeat()) {
        heartbeats.add(
            r.heartbeat().producerId() + r.heartbeat().watermark() + r.heartbeat().isFinal());
      } else {
        events++;
      }
    }
    // each distinct heartbeat goes to each of the 3 partitions of the new topic
    assertEquals(events + 3L * heartbeats.size(), SecuredCluster.records("tpot.replayed"));
  }

  /** After the pipeline above: the cluster holds earlier events, and a long-lived pipeline's. */
  @Test
  @Order(2)
  void twoRunsInARowOnTheSharedClusterReportOnlyThemselvesAndLeaveNothingBehind() throws Exception {
    // what a run killed an hour ago left behind: its summaries topic and its aggregator's group
    String killed =
        "tpot-run-" + Long.toString(System.currentTimeMillis() - 3_600_000L, 36) + "abc";
    try (Admin admin = SecuredCluster.superAdmin(kafka)) {
      admin
          .createTopics(List.of(new NewTopic(killed + "-window-summaries", 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      admin
          .alterConsumerGroupOffsets(
              killed,
              Map.of(new TopicPartition(killed + "-window-summaries", 0), new OffsetAndMetadata(0)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    List<List<String>> csvs = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      Path out = dir.resolve("run-" + i);
      TpotCli.Result run =
          withConfig(
              "run",
              3 + i,
              kafka.bootstrapServers(),
              client,
              "--out",
              out.toString(),
              "--window",
              "1s",
              "--prometheus-port",
              "-1");
      assertEquals(0, run.exit(), run.err());
      List<String> rows = csv(out.resolve("summaries.csv"));
      // this run's requests, every one once, and no other run's
      assertEquals(2L * (3 + i), sum(rows, "requests_completed"), String.join("\n", rows));
      csvs.add(rows);
    }
    Set<String> common = windows(csvs.get(0));
    common.retainAll(windows(csvs.get(1)));
    assertTrue(common.isEmpty(), "windows in both runs: " + common);
    assertTrue(
        SecuredCluster.topics().stream().noneMatch(t -> t.startsWith("tpot-run-")),
        "topics left: " + SecuredCluster.topics());
    assertTrue(
        SecuredCluster.groups().stream().noneMatch(g -> g.startsWith("tpot-run-")),
        "groups left: " + SecuredCluster.groups());
  }

  @Test
  void aWrongPasswordIsOneLineNamingTheUserAndTheFileForEveryCommand() throws Exception {
    String b = kafka.bootstrapServers();
    String file = wrongPassword.toString();
    List<String[]> commands =
        List.of(
            new String[] {"produce", "--config", producerConfig(1).toString()},
            new String[] {"aggregate"},
            new String[] {"sink", "--csv", dir.resolve("never.csv").toString(), "--no-prometheus"},
            new String[] {"export", "--out", dir.resolve("never.jsonl").toString()},
            new String[] {"replay", "--file", dir.resolve("never.jsonl").toString()},
            new String[] {"report", "--from-topic", "--out", dir.resolve("never").toString()},
            new String[] {"run", "--config", producerConfig(1).toString()},
            new String[] {"demo", "--out", dir.resolve("never").toString()});
    for (String[] command : commands) {
      List<String> args = new ArrayList<>(List.of(command));
      args.addAll(List.of("--bootstrap-server", b, "--kafka-config", file));
      TpotCli.Result r = tpot(args.toArray(String[]::new));
      assertEquals(2, r.exit(), command[0] + ": " + r.err());
      assertTrue(
          r.err().contains("authentication failed for user tpot at " + b)
              && r.err().contains("check sasl.jaas.config")
              && r.err().contains(file),
          command[0] + ": " + r.err());
      assertFalse(r.err().contains("not-the-password"), r.err());
      assertEquals(1, r.err().lines().count(), r.err());
    }
  }

  @Test
  void aMissingAclNamesTheResourceAndTheOperation() throws Exception {
    String b = kafka.bootstrapServers();
    TpotCli.Result sink =
        tpot(
            "sink",
            "--bootstrap-server",
            b,
            "--kafka-config",
            client.toString(),
            "--group-id",
            "other-sink",
            "--csv",
            dir.resolve("other.csv").toString(),
            "--no-prometheus");
    assertEquals(2, sink.exit(), sink.err());
    assertTrue(sink.err().contains("user tpot may not READ group other-sink"), sink.err());

    // a user allowed on the shared topics only: the run's aggregator cannot have its group
    Path limited =
        SecuredCluster.propertiesFile(
            dir, "limited.properties", SecuredCluster.LIMITED, SecuredCluster.PASSWORD, false);
    TpotCli.Result run =
        withConfig("run", 1, b, limited, "--out", dir.resolve("limited").toString());
    assertEquals(2, run.exit(), run.err());
    assertTrue(
        run.err().startsWith("tpot run: user limited may not READ, DELETE group tpot-run-")
            && run.err().contains("--resource-pattern-type prefixed --group tpot-run-"),
        run.err());

    TpotCli.Result unknown = withConfig("produce", 1, b, client, "--topic", "other.events");
    assertEquals(2, unknown.exit(), unknown.err());
    assertTrue(
        unknown
            .err()
            .contains("user tpot may not DESCRIBE topic other.events (it has no ACL on it)"),
        unknown.err());

    // allowed to see topics named other.*, not to create them
    try (Admin admin = SecuredCluster.superAdmin(kafka)) {
      admin
          .createAcls(
              List.of(
                  new AclBinding(
                      new ResourcePattern(ResourceType.TOPIC, "other.", PatternType.PREFIXED),
                      new AccessControlEntry(
                          "User:tpot", "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW))))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    TpotCli.Result create = withConfig("produce", 1, b, client, "--topic", "other.events");
    assertEquals(2, create.exit(), create.err());
    assertTrue(
        create
                .err()
                .contains(
                    "topic other.events does not exist and cannot be created: user tpot"
                        + " may not CREATE topic other.events")
            && create
                .err()
                .contains(
                    "kafka-topics.sh --bootstrap-server "
                        + b
                        + " --create --topic other.events --partitions 3"),
        create.err());
  }
}
