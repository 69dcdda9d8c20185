package io.tpotstream.app;

import static io.tpotstream.app.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code tpot compare} on exports and on summaries files, from the command line. */
class CompareCommandTest {
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  /** 40 requests over 40 s, 20 chunks each {@code gapUs} apart, one request a second. */
  private static List<TokenEvent> run(long gapUs) {
    List<TokenEvent> events = new ArrayList<>();
    Map<String, String> labels = Map.of();
    for (int r = 0; r < 40; r++) {
      long start = T0 + r * 1_000L;
      String id = "req-" + r;
      events.add(TokenEvent.start(start, "run", id, "m", labels, null, "p1"));
      long elapsed = 50_000_000L;
      for (int k = 0; k < 20; k++) {
        events.add(TestEvents.content(start + elapsed / 1_000_000, id, labels, elapsed, k));
        elapsed += gapUs * 1000 + (k % 3) * 1_000L;
      }
      events.add(
          TokenEvent.end(
              start + elapsed / 1_000_000,
              "run",
              id,
              "m",
              labels,
              elapsed,
              20,
              5,
              20,
              "stop",
              null,
              "p1"));
    }
    events.add(TokenEvent.heartbeat(T0 + 60_000, "run", "p1", T0 + 60_000, true, null));
    return events;
  }

  private Path export(String name, List<TokenEvent> events) throws Exception {
    return TestEvents.write(dir.resolve(name), events);
  }

  @Test
  void twoExportsPrintBothRunsAndTheDifferenceOverRequests() throws Exception {
    Path a = export("a.jsonl", run(1_000));
    Path b = export("b.jsonl", run(2_000));
    Path html = dir.resolve("compare.html");
    Path json = dir.resolve("compare.json");
    TpotCli.Result r =
        tpot(
            "compare",
            a.toString(),
            b.toString(),
            "--html",
            html.toString(),
            "--json",
            json.toString(),
            "--resamples",
            "200");
    assertEquals(0, r.exit(), r.err());
    assertTrue(
        r.out().startsWith("A: " + a + " (export, 4 windows, 40 requests, 1 series)\nB: "),
        r.out());
    assertTrue(
        r.out().contains("whole-run percentiles from merged histograms, bootstrap over requests"),
        r.out());
    // gaps of 1.000-1.002 ms against 2.000-2.002 ms
    assertTrue(
        r.outHasLine("m\\s+TPOT\\s+p50\\s+1\\.001\\s+2\\.001\\s+\\+1\\.000\\s+\\+99\\.9%.*yes"),
        r.out());
    assertTrue(
        r.outHasLine("m\\s+TTFT\\s+p50\\s+50\\.015\\s+50\\.015\\s+0\\.000\\s+0\\.0%.*no"), r.out());
    assertTrue(Files.readString(html).contains("<table id=\"comparison\">"));
    assertEquals(
        "requests",
        Json.MAPPER.readTree(json.toFile()).path("series").get(0).path("unit").asText());
  }

  @Test
  void summariesFilesAreComparedOverWindows() throws Exception {
    Path a = dir.resolve("a-summaries.jsonl");
    Path b = dir.resolve("b-summaries.jsonl");
    for (Path p : List.of(a, b)) {
      List<String> lines = new ArrayList<>();
      OfflineStats.compute(run(p == a ? 1_000 : 1_500), StageSettings.defaults(), x -> {})
          .forEach(s -> lines.add(WindowSummaryCodec.encodeToString(s)));
      Files.write(p, lines);
    }
    TpotCli.Result r = tpot("compare", a.toString(), b.toString(), "--format", "json");
    assertEquals(0, r.exit(), r.err());
    var root = Json.MAPPER.readTree(r.out());
    assertEquals("summaries", root.path("a").path("kind").asText());
    assertEquals("windows", root.path("series").get(0).path("unit").asText());
    assertEquals("tpot", root.path("series").get(0).path("stats").get(0).path("metric").asText());
    assertEquals(1.001, root.path("series").get(0).path("stats").get(0).path("aMs").asDouble());
    assertEquals(1.501, root.path("series").get(0).path("stats").get(0).path("bMs").asDouble());
  }

  @Test
  void aFileThatIsNeitherSaysWhatItExpected() throws Exception {
    Path junk = dir.resolve("junk.jsonl");
    Files.writeString(junk, "{\"hello\": 1}\n");
    TpotCli.Result r = tpot("compare", junk.toString(), junk.toString());
    assertEquals(2, r.exit());
    assertEquals(
        "tpot compare: "
            + junk
            + " is neither window summaries (the sink's .jsonl or .csv) nor"
            + " token events (tpot export): check the file",
        r.err().strip());
  }
}
