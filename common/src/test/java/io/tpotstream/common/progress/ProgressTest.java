package io.tpotstream.common.progress;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressTest {
  private final StringWriter text = new StringWriter();
  private final PrintWriter out = new PrintWriter(text, true);

  private String output() {
    synchronized (text) {
      return text.toString();
    }
  }

  @Test
  void plainModePrintsWholeLinesWithCountTotalPercentRateAndThenTheResult() {
    Progress progress = Progress.start("replay", Progress.Mode.PLAIN, out, Duration.ofMillis(50));
    progress.phase("sending to t", "records", 2_000);
    progress.set(500);
    await().atMost(Duration.ofSeconds(10)).until(() -> output().contains("500/2,000 records"));
    progress.finish("replay: 2,000 records published");

    List<String> lines = output().lines().toList();
    String line = lines.get(0);
    assertTrue(line.startsWith("replay: sending to t 500/2,000 records  25.0%  "), line);
    assertTrue(line.matches(".* [\\d,]+ records/s .*"), line);
    assertTrue(line.contains(" elapsed"), line);
    assertTrue(!line.contains("\r") && !line.contains("\033"), line);
    assertEquals("replay: 2,000 records published", lines.get(lines.size() - 1));
  }

  @Test
  void theFractionCanComeFromAnotherMeasureThanTheCount() {
    Progress progress = Progress.start("stats", Progress.Mode.PLAIN, out, Duration.ofDays(1));
    progress.phase("reading f", "records", -1);
    progress.add(1_234);
    progress.fraction(3, 4);
    assertTrue(progress.line().startsWith("stats: reading f 1,234 records  75.0%  "));
    progress.finish(null);
  }

  @Test
  void theRateIsTheAverageSinceThePhaseBeganUntilAFirstTwoSecondSpanIsOver() {
    Progress progress = Progress.start("replay", Progress.Mode.QUIET, out);
    progress.phase("sending to t", "records", -1);
    long start = progress.phaseStartNs();
    assertTrue(progress.lineAt(start + 250_000_000L).contains("  0 records/s"));
    progress.add(300_000); // a batch counted at once, after the first line
    String oneSecondIn = progress.lineAt(start + 1_000_000_000L);
    assertTrue(oneSecondIn.contains("  300,000 records/s"), oneSecondIn);
    progress.add(100_000);
    String twoSecondsIn = progress.lineAt(start + 2_000_000_000L);
    assertTrue(twoSecondsIn.contains("  200,000 records/s"), twoSecondsIn);
    progress.add(50_000); // from then on, the rate over the last span
    String fourSecondsIn = progress.lineAt(start + 4_000_000_000L);
    assertTrue(fourSecondsIn.contains("  25,000 records/s"), fourSecondsIn);
    progress.finish(null);
  }

  @Test
  void liveModeRedrawsOneLineAndClearsItBeforeOtherOutput() {
    Progress progress = Progress.start("export", Progress.Mode.LIVE, out);
    progress.phase("reading t", "records", -1);
    progress.add(7);
    await().atMost(Duration.ofSeconds(10)).until(() -> output().contains("\rexport: reading t 7"));
    progress.warn("export: a warning");
    progress.finish("export: done");
    String all = output();
    assertTrue(all.contains("\r\033[Kexport: a warning\n"), all);
    assertTrue(all.endsWith("export: done\n"), all);
    assertTrue(!all.contains("export: done\r"), all);
  }

  @Test
  void quietModeShowsNothingButWarnings() throws Exception {
    Progress progress = Progress.start("stats", Progress.Mode.QUIET, out, Duration.ofMillis(1));
    progress.phase("reading", "records", 10);
    progress.set(5);
    Thread.sleep(50); // a plain or live progress would have printed by now
    progress.println("stats: an informational line");
    progress.warn("stats: line 3 skipped");
    progress.finish("stats: done");
    assertEquals("stats: line 3 skipped\n", output());
  }

  @Test
  void aPolledCountAndItsDetailAreReadBeforeEachLine() {
    long[] finished = {0};
    Progress progress = Progress.start("produce", Progress.Mode.PLAIN, out, Duration.ofMillis(20));
    progress.phase("", "requests", 200);
    progress.refresh(
        () -> {
          progress.set(finished[0]);
          progress.detail(() -> "3 in flight, 0 errors");
        });
    finished[0] = 12;
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> output().contains("produce: 12/200 requests  6.0%"));
    progress.finish(null);
    String line = output().lines().filter(l -> l.contains("12/200")).findFirst().orElseThrow();
    assertTrue(line.endsWith("elapsed  3 in flight, 0 errors"), line);
  }

  @Test
  void clockReadsMinutesAndHours() {
    assertEquals("0:07", Progress.clock(7.2));
    assertEquals("12:03", Progress.clock(723));
    assertEquals("1:02:03", Progress.clock(3723));
  }
}
