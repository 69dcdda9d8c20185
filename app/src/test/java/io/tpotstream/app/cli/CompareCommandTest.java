package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
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
import java.util.regex.Pattern;
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

  /** The summaries of {@code run(gapUs)}, one JSON line each, as the sink's JSONL. */
  private Path summaries(String name, long gapUs) throws Exception {
    List<String> lines = new ArrayList<>();
    OfflineStats.compute(run(gapUs), StageSettings.defaults(), x -> {})
        .forEach(s -> lines.add(WindowSummaryCodec.encodeToString(s)));
    return Files.write(dir.resolve(name), lines);
  }

  @Test
  void fromAndToKeepOnlyTheEventsInTheRangeOnBothSides() throws Exception {
    Path a = export("a.jsonl", run(1_000));
    Path b = export("b.jsonl", run(2_000));
    // requests 10 to 19 start at T0 + 10 s ... 19 s and end within 71 ms: 10 whole requests of
    // 22 events each, in the one window [10 s, 20 s); 881 - 220 records of each side are outside
    TpotCli.Result r =
        tpot(
            "compare",
            a.toString(),
            b.toString(),
            "--from",
            Long.toString(T0 + 10_000),
            "--to",
            "2023-11-14T22:13:40Z", // T0 + 20 s
            "--resamples",
            "100");
    assertEquals(0, r.exit(), r.err());
    assertEquals(
        List.of(
            "A: " + a + " (export, 1 windows, 10 requests, 1 series)",
            "B: " + b + " (export, 1 windows, 10 requests, 1 series)"),
        r.out().lines().limit(2).toList());
    assertTrue(
        lastLine(r.err())
            .matches(
                "compare: "
                    + Pattern.quote(a + " (220 events) and " + b + " (220 events)")
                    + " compared in \\d+\\.\\d s \\(1,322 outside --from/--to\\)"),
        r.err());
  }

  @Test
  void fromAndToKeepTheWindowsOfASummariesFileWhollyInsideTheRange() throws Exception {
    Path a = summaries("a-summaries.jsonl", 1_000);
    Path b = summaries("b-summaries.jsonl", 1_500);
    // four windows of 10 s from T0; [T0 + 5 s, T0 + 30 s) holds two whole ones and cuts the first
    TpotCli.Result r =
        tpot(
            "compare",
            a.toString(),
            b.toString(),
            "--from",
            Long.toString(T0 + 5_000),
            "--to",
            Long.toString(T0 + 30_000),
            "--format",
            "json",
            "-q");
    assertEquals(0, r.exit(), r.err());
    var root = Json.MAPPER.readTree(r.out());
    assertEquals(2, root.path("a").path("windows").asInt(), r.out());
    assertEquals(2, root.path("b").path("windows").asInt(), r.out());
    assertEquals("", r.err());
    TpotCli.Result all = tpot("compare", a.toString(), b.toString(), "--format", "json", "-q");
    assertEquals(4, Json.MAPPER.readTree(all.out()).path("a").path("windows").asInt());
  }

  @Test
  void quietShowsNoProgressAndWithoutItTheResultLineEndsTheProgress() throws Exception {
    Path a = export("a.jsonl", run(1_000));
    Path b = export("b.jsonl", run(2_000));
    Path json = dir.resolve("compare.json");
    TpotCli.Result quiet =
        tpot(
            "compare",
            a.toString(),
            b.toString(),
            "-q",
            "--json",
            json.toString(),
            "--resamples",
            "100");
    assertEquals(0, quiet.exit(), quiet.err());
    assertEquals("", quiet.err());
    assertTrue(quiet.outHasLine("m\\s+TPOT\\s+p50\\s+1\\.001\\s+2\\.001.*yes"), quiet.out());
    assertTrue(Files.size(json) > 0);

    TpotCli.Result longSpelling =
        tpot("compare", a.toString(), b.toString(), "--quiet", "--resamples", "100");
    assertEquals(0, longSpelling.exit(), longSpelling.err());
    assertEquals("", longSpelling.err());
    // the tests' stderr is no terminal: plain lines, each phase's every few seconds (too few for
    // these small files to reach one, unless the machine stalls), then the result line
    TpotCli.Result plain =
        tpot(
            "compare", a.toString(), b.toString(), "--json", json.toString(), "--resamples", "100");
    assertEquals(0, plain.exit(), plain.err());
    assertEquals(quiet.out(), plain.out());
    List<String> lines = plain.err().lines().toList();
    for (String line : lines.subList(0, lines.size() - 1)) {
      assertTrue(
          line.matches(
              "compare: (reading|sorting|computing|requests of) [ab]\\.jsonl .*elapsed"
                  + "|compare: resampling .* resamples .*elapsed"),
          plain.err());
    }
    assertTrue(
        lastLine(plain.err())
            .matches(
                "compare: "
                    + Pattern.quote(a + " (881 events) and " + b + " (881 events)")
                    + " compared in \\d+\\.\\d s; wrote "
                    + Pattern.quote(json.toString())),
        plain.err());
  }

  @Test
  void statsAndReplayOnASummariesFileSayWhatToUseInstead() throws Exception {
    Path summaries = summaries("summaries.jsonl", 1_000);
    TpotCli.Result r = tpot("stats", summaries.toString());
    assertEquals(2, r.exit(), r.err());
    assertEquals("", r.out());
    assertEquals(
        "tpot stats: "
            + summaries
            + " holds window summaries (written by tpot sink), not token events: stats reads"
            + " token events (a tpot export file). To chart these summaries use tpot report"
            + " --summaries FILE (the .jsonl); to compare two runs' summaries use tpot compare A"
            + " B",
        r.err().strip());
    // replay says so before it connects (nothing listens on port 1)
    TpotCli.Result replay =
        tpot("replay", "--bootstrap-server", "127.0.0.1:1", summaries.toString());
    assertEquals(2, replay.exit(), replay.err());
    assertTrue(
        replay.err().startsWith("tpot replay: " + summaries + " holds window summaries"),
        replay.err());
    assertTrue(replay.err().contains("replay reads token events"), replay.err());
    Path csv = dir.resolve("summaries.csv");
    Files.writeString(csv, "window_start,window_end,ts,series,model\n");
    TpotCli.Result onCsv = tpot("stats", "--file", csv.toString(), "-q");
    assertEquals(2, onCsv.exit(), onCsv.err());
    assertTrue(onCsv.err().contains(csv + " holds window summaries"), onCsv.err());
  }

  private static String lastLine(String text) {
    List<String> lines = text.lines().toList();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }
}
