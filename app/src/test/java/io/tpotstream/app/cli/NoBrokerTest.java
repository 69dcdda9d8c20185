package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.archive.Replayer;
import io.tpotstream.common.kafka.KafkaAccessException;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
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
    String address = "127.0.0.1:" + freePort();
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
      StringWriter err = new StringWriter();
      int exit = tpot(err, command, address);
      assertEquals(2, exit, command[0] + ": " + err);
      assertEquals(refused(command[0], address), err.toString().strip(), command[0]);
    }
  }

  /**
   * {@code replay} checks the connection while it reads the archive: a refused connection stops the
   * reading at once, with the same line. The archive is a named pipe nobody writes to, so the
   * reading alone would never end.
   */
  @Tag("slow")
  @Test
  void replayStopsReadingTheArchiveWhenNoBrokerListens() throws Exception {
    Path pipe = dir.resolve("never-written.jsonl");
    assertEquals(0, new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor(), "mkfifo");
    String address = "127.0.0.1:" + freePort();
    try {
      StringWriter err = new StringWriter();
      int exit = tpot(err, new String[] {"replay", "--file", pipe.toString()}, address);
      assertEquals(2, exit, err.toString());
      assertEquals(refused("replay", address), err.toString().strip());
    } finally {
      // a reader still opening the pipe gets its end of file (opening it read-write never blocks)
      new RandomAccessFile(pipe.toFile(), "rw").close();
    }
  }

  /**
   * A connection check that fails once the archive has been read (an empty one; the listener
   * accepts but never answers, so the check gives up after its timeout) is what the replay throws,
   * and it leaves the calling thread as it found it: not interrupted.
   */
  @Tag("slow")
  @Test
  void aReplayWhoseConnectionFailsAfterTheReadingLeavesItsThreadUninterrupted() throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.jsonl"));
    try (ServerSocket silent = new ServerSocket(0)) {
      String address = "127.0.0.1:" + silent.getLocalPort();
      KafkaConnection kafka = KafkaConnection.of(address).withTimeout(Duration.ofSeconds(2));
      Replayer replayer =
          new Replayer(
              new Replayer.Settings(kafka, empty, "t", 0, 1, null, null, false, false),
              Progress.quiet());
      KafkaAccessException e = assertThrows(KafkaAccessException.class, replayer::run);
      assertTrue(e.getMessage().contains(address), e.getMessage());
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().equals("replay-setup")) {
          t.join(30_000); // whatever the failed set-up would do to this thread, it has done
        }
      }
      assertFalse(Thread.currentThread().isInterrupted());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static int tpot(StringWriter err, String[] command, String address) {
    List<String> args = new ArrayList<>(List.of(command));
    args.addAll(List.of("--bootstrap-server", address));
    return assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          CommandLine tpot = Tpot.commandLine();
          tpot.setOut(new PrintWriter(new StringWriter()));
          tpot.setErr(new PrintWriter(err));
          return tpot.execute(args.toArray(String[]::new));
        });
  }

  private static String refused(String command, String address) {
    return "tpot "
        + command
        + ": no Kafka broker at "
        + address
        + " (from --bootstrap-server): "
        + address
        + " refused the connection (nothing listens there). Check the address and port"
        + " (--bootstrap-server, bootstrap.servers in the --kafka-config file or"
        + " KAFKA_BOOTSTRAP_SERVERS), that the broker is running and that this machine can"
        + " reach it";
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
