package io.tpotstream.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every command that talks to Kafka, pointed at an address where nothing listens, stops with one
 * line naming the address, where it came from and what to check: never a silent wait. (The bound is
 * a guard against hanging, far above the fraction of a second a refused connection takes.)
 */
class NoBrokerTest {
  @TempDir Path dir;

  @Test
  void everyKafkaCommandSaysThatNoBrokerListensAtTheAddress() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    String address = "127.0.0.1:" + port;
    Path config = dir.resolve("producer.json");
    Files.writeString(
        config,
        """
        {"base_url": "http://127.0.0.1:9/v1", "api_key": "k", "models": ["m"], "total_requests": 1}
        """);
    List<String[]> commands =
        List.of(
            new String[] {"produce", "--config", config.toString()},
            new String[] {"aggregate"},
            new String[] {"sink", "--csv", dir.resolve("s.csv").toString(), "--no-prometheus"},
            new String[] {"export", "--out", dir.resolve("e.jsonl").toString()},
            new String[] {"replay", "--file", dir.resolve("e.jsonl").toString()},
            new String[] {"report", "--from-topic", "--out", dir.toString()},
            new String[] {"run", "--config", config.toString()},
            new String[] {"demo", "--out", dir.toString()});
    for (String[] command : commands) {
      List<String> args = new ArrayList<>(List.of(command));
      args.addAll(List.of("--bootstrap-server", address));
      StringWriter err = new StringWriter();
      int exit =
          assertTimeoutPreemptively(
              Duration.ofSeconds(60),
              () -> {
                CommandLine tpot = Tpot.commandLine();
                tpot.setOut(new PrintWriter(new StringWriter()));
                tpot.setErr(new PrintWriter(err));
                return tpot.execute(args.toArray(String[]::new));
              });
      assertEquals(2, exit, command[0] + ": " + err);
      assertEquals(
          "tpot "
              + command[0]
              + ": no Kafka broker at "
              + address
              + " (from --bootstrap-server): "
              + address
              + " refused the connection (nothing listens there). Check the address and port"
              + " (--bootstrap-server, bootstrap.servers in the --kafka-config file or"
              + " KAFKA_BOOTSTRAP_SERVERS), that the broker is running and that this machine can"
              + " reach it",
          err.toString().strip(),
          command[0]);
    }
  }

  @Test
  void theKafkaToolsSpellingsAreTheSameFlags() {
    CommandLine tpot = Tpot.commandLine();
    for (String command :
        List.of("produce", "aggregate", "sink", "export", "replay", "report", "run", "demo")) {
      var spec = tpot.getSubcommands().get(command).getCommandSpec();
      assertTrue(
          spec.findOption("--bootstrap-server") == spec.findOption("--bootstrap-servers"), command);
      assertTrue(spec.findOption("--command-config") == spec.findOption("--kafka-config"), command);
      assertTrue(spec.findOption("--kafka-timeout") != null, command);
    }
  }
}
