package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.sink.file.CsvFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A second {@code tpot sink} or {@code tpot run} on files a sink is writing stops at once, exit
 * status 2, with a line naming the file and the writer: before it asks Kafka anything (nothing
 * listens at the address here, and that is not what it says).
 */
class SinkFileLockTest {
  @TempDir Path dir;

  private static String nowhere() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return "127.0.0.1:" + socket.getLocalPort();
    }
  }

  private static int tpot(StringWriter err, String... args) {
    CommandLine tpot = Tpot.commandLine();
    tpot.setOut(new PrintWriter(new StringWriter()));
    tpot.setErr(new PrintWriter(err));
    return tpot.execute(args);
  }

  private static String expected(String command, Path csv) {
    return "tpot "
        + command
        + ": "
        + csv
        + " is being written by another writer (pid "
        + ProcessHandle.current().pid()
        + " on host "
        + host()
        + ", since ";
  }

  private static String host() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aSinkGivenASymlinkToTheCsvAnotherSinkWritesStopsWithStatus2() throws Exception {
    Path csv = dir.resolve("summaries.csv");
    Path link = Files.createSymbolicLink(dir.resolve("alias.csv"), csv);
    try (CsvFile held = CsvFile.open(csv, null)) {
      StringWriter err = new StringWriter();
      int exit =
          tpot(
              err,
              "sink",
              "--csv",
              link.toString(),
              "--no-prometheus",
              "--bootstrap-server",
              nowhere());

      assertEquals(2, exit, err.toString());
      String line = err.toString().strip();
      assertTrue(
          line.startsWith(
              "tpot sink: "
                  + link
                  + " (that is "
                  + csv.toRealPath()
                  + ") is being written by another writer (pid "),
          line);
      assertTrue(
          line.endsWith(
              "; lock "
                  + csv.toRealPath()
                  + ".lock): stop that one, or give this one another file"),
          line);
    }
  }

  @Test
  void aSinkOnAFileAnotherSinkWritesStopsWithStatus2() throws Exception {
    Path csv = dir.resolve("summaries.csv");
    try (CsvFile held = CsvFile.open(csv, null)) {
      StringWriter err = new StringWriter();
      int exit =
          tpot(
              err,
              "sink",
              "--csv",
              csv.toString(),
              "--no-prometheus",
              "--bootstrap-server",
              nowhere());

      assertEquals(2, exit, err.toString());
      String line = err.toString().strip();
      assertTrue(line.startsWith(expected("sink", csv)), line);
      assertTrue(
          line.endsWith("; lock " + csv + ".lock): stop that one, or give this one another file"),
          line);
      assertEquals(1, line.lines().count(), line);
    }
  }

  @Test
  void aRunIntoTheOutDirOfARunningSinkStopsBeforeItStarts() throws Exception {
    Path out = dir.resolve("out");
    Files.createDirectories(out);
    Path config = dir.resolve("producer.json");
    Files.writeString(
        config,
        """
        {"base_url": "http://127.0.0.1:9/v1", "api_key": "k", "models": ["m"], "total_requests": 1}
        """);
    for (List<String> command :
        List.of(
            List.of("run", "--config", config.toString(), "--out", out.toString()),
            List.of("demo", "--out", out.toString()))) {
      try (CsvFile held = CsvFile.open(out.resolve("summaries.csv"), null)) {
        StringWriter err = new StringWriter();
        List<String> args = new java.util.ArrayList<>(command);
        args.addAll(List.of("--bootstrap-server", nowhere()));

        int exit = tpot(err, args.toArray(String[]::new));

        assertEquals(2, exit, err.toString());
        String line = err.toString().strip();
        assertTrue(line.startsWith(expected(command.get(0), out.resolve("summaries.csv"))), line);
      }
    }
  }
}
