package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Series;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.sink.file.JsonlFile;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ReportCommandTest {
  @TempDir Path dir;

  @Test
  void writesTheChartsAndTheReportFromTheJsonlBesideTheCsv() throws Exception {
    try (JsonlFile jsonl = JsonlFile.open(dir.resolve("summaries.jsonl"), s -> {})) {
      for (int w = 0; w < 3; w++) {
        WindowStats stats = new WindowStats();
        for (int i = 1; i <= 100; i++) {
          stats.tpot.recordMicros(i * 10L);
        }
        stats.started(1);
        stats.completed(1, false);
        long startMs = 1_767_225_600_000L + w * 10_000L;
        jsonl.append(
            stats.toSummary(Series.name("m", Map.of()), "m", Map.of(), startMs, startMs + 10_000));
      }
      jsonl.sync();
    }

    TpotCli.Result r =
        TpotCli.tpot(
            "report",
            "--csv",
            dir.resolve("summaries.csv").toString(),
            "--out",
            dir.resolve("out").toString());

    assertEquals(0, r.exit(), r.err());
    // the whole run's table: the three windows' histograms merged
    assertTrue(r.outHasLine("From 3 windows of .*summaries\\.jsonl:"), r.out());
    assertTrue(
        r.outHasLine(
            "m +300 +0\\.50 +0\\.50 +0\\.90 +0\\.99 +1\\.00 +1\\.00 +1\\.00 +- +- +0 +0\\.0000"),
        r.out());
    for (String file :
        new String[] {
          "tpot.png", "ttft.png", "error-rate.png", "tokens-per-second.png", "report.html"
        }) {
      assertTrue(Files.size(dir.resolve("out").resolve(file)) > 0, file);
    }
  }

  @Test
  void aMissingJsonlIsOneLineThatSaysWhatToDo() {
    StringWriter err = new StringWriter();
    CommandLine tpot = Tpot.commandLine();
    tpot.setErr(new PrintWriter(err));

    int exit = tpot.execute("report", "--csv", dir.resolve("none.csv").toString());

    assertEquals(2, exit);
    String message = err.toString();
    assertEquals(1, message.lines().count(), message);
    assertTrue(message.startsWith("tpot report: no " + dir.resolve("none.jsonl")), message);
    assertTrue(message.contains("--from-topic"), message);
  }
}
