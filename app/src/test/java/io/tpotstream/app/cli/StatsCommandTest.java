package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.file.Csv;
import io.tpotstream.sink.record.FlatRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StatsCommandTest {
  static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  /** Two requests of two concurrency labels, 20 chunks 5 ms apart, and a final heartbeat. */
  private static List<TokenEvent> events() {
    List<TokenEvent> events = new ArrayList<>();
    events.add(TokenEvent.heartbeat(T0, "run", "p1", T0 - 200, false, null));
    for (int r = 0; r < 2; r++) {
      Map<String, String> labels = Map.of("concurrency", r == 0 ? "5" : "20");
      String id = "req-" + r;
      events.add(TokenEvent.start(T0 + 10, "run", id, "m", labels, null, "p1"));
      for (int k = 0; k < 20; k++) {
        long elapsedNs = 100_000_000L + k * 5_000_000L + r * 1_000_000L;
        events.add(TestEvents.content(T0 + 110 + k * 5L, id, labels, elapsedNs, k));
      }
      events.add(
          TokenEvent.end(
              T0 + 300, "run", id, "m", labels, 200_000_000L, 20, 5, 20, "stop", null, "p1"));
    }
    events.add(TokenEvent.heartbeat(T0 + 400, "run", "p1", T0 + 400, true, null));
    return events;
  }

  /** Writes the events as `tpot export` does, in partition-then-offset order, plus junk. */
  private Path exportFile(List<TokenEvent> events) throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = events.size() - 1; i >= 0; i--) { // reversed: stats must sort by (ts, ...)
      TokenEvent e = events.get(i);
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("key", e.requestId() != null ? e.requestId() : e.producerId());
      line.put("partition", 0);
      line.put("offset", i);
      line.put("timestamp", e.ts());
      line.put("value", Json.MAPPER.readTree(TokenEventCodec.encode(e)));
      lines.add(Json.MAPPER.writeValueAsString(line));
    }
    lines.add(2, "{\"key\":\"x\",\"partition\":0,\"offset\":99,\"value\":{\"type\":\"token\"");
    Path file = dir.resolve("events.jsonl");
    Files.write(file, lines);
    return withManifest(file, lines.size());
  }

  /**
   * Writes the manifest an export would write beside {@code file} (whole, in partition order): an
   * archive of export records without one is refused as of unknown completeness.
   */
  static Path withManifest(Path file, long lines) throws java.io.IOException {
    new ArchiveManifest(
            ArchiveManifest.FORMAT,
            "tpot.token-events",
            List.of(0),
            lines,
            Files.size(file),
            ArchiveManifest.PARTITION_ORDER,
            null,
            null)
        .withChecksumOf(file)
        .write(file);
    return file;
  }

  private record Run(int exit, String out, String err) {}

  private static Run tpot(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cmd = Tpot.commandLine();
    cmd.setOut(new PrintWriter(out));
    cmd.setErr(new PrintWriter(err));
    int exit = cmd.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  @Test
  void jsonFormatPrintsTheAggregatorsSummariesAndSkipsACorruptLineByNumber() throws Exception {
    List<TokenEvent> events = events();
    Path file = exportFile(events);

    Run run = tpot("stats", file.toString(), "--group-by", "concurrency", "--format", "json");

    assertEquals(0, run.exit(), run.err());
    List<String> expected =
        OfflineStats.compute(
                events,
                StageSettings.defaults().withGroupBy(List.of("concurrency")),
                p -> {
                  throw new AssertionError(p);
                })
            .stream()
            .map(WindowSummaryCodec::encodeToString)
            .toList();
    assertEquals(2, expected.size());
    assertEquals(expected, run.out().lines().toList());
    assertTrue(run.err().contains("events.jsonl line 3: "), run.err());
    assertTrue(run.err().contains("(skipped)"), run.err());
    assertTrue(
        run.err().contains(events.size() + " events, 1 lines skipped, 2 summaries"), run.err());
    assertEquals(19, WindowSummaryCodec.decode(run.out().lines().findFirst().get()).tpot().count());
  }

  @Test
  void aFinalHeartbeatInTheMillisecondOfTheLastTokenDoesNotMakeItLate() throws Exception {
    long ts = T0 + 9_999;
    List<TokenEvent> events = new ArrayList<>();
    events.add(TokenEvent.heartbeat(T0, "run", "p1", T0 - 200, false, null));
    events.add(TokenEvent.start(T0 + 1, "run", "r", "m", Map.of(), null, "p1"));
    events.add(TestEvents.content(T0 + 2, "r", Map.of(), 1_000_000L, 0));
    events.add(TestEvents.content(ts, "r", Map.of(), 2_000_000L, 1));
    events.add(TokenEvent.heartbeat(ts, "run", "p1", ts, true, null));
    List<String> lines = new ArrayList<>();
    for (int p = 0; p < 3; p++) { // the final heartbeat went to partitions 0..2; the token to 2
      lines.add(exported(events.get(4), p, 10 + p));
    }
    lines.add(exported(events.get(0), 0, 0));
    lines.add(exported(events.get(1), 2, 0));
    lines.add(exported(events.get(2), 2, 1));
    lines.add(exported(events.get(3), 2, 2));
    Path file = withManifest(Files.write(dir.resolve("same-ms.jsonl"), lines), lines.size());

    Run run = tpot("stats", file.toString(), "--format", "json");

    WindowSummary s = WindowSummaryCodec.decode(run.out().lines().findFirst().orElseThrow());
    assertEquals(1, s.tpot().count(), run.out());
    assertEquals(0, s.lateSamples());
  }

  private static String exported(TokenEvent e, int partition, long offset) throws Exception {
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("key", e.requestId() != null ? e.requestId() : e.producerId());
    line.put("partition", partition);
    line.put("offset", offset);
    line.put("timestamp", e.ts());
    line.put("value", Json.MAPPER.readTree(TokenEventCodec.encode(e)));
    return Json.MAPPER.writeValueAsString(line);
  }

  @Test
  void aGzippedFileGivesTheSameSummaries() throws Exception {
    Path plain = exportFile(events());
    Path gz = dir.resolve("events.jsonl.gz");
    try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(gz))) {
      out.write(Files.readAllBytes(plain));
    }
    withManifest(gz, Files.readAllLines(plain).size());
    Run fromPlain = tpot("stats", plain.toString(), "--format", "json");
    Run fromGz = tpot("stats", gz.toString(), "--format", "json");
    assertEquals(1, fromGz.out().lines().count(), fromGz.err()); // one series, one window
    assertEquals(fromPlain.out(), fromGz.out());
  }

  @Test
  void csvFormatWritesTheSinkColumns() throws Exception {
    Path file = exportFile(events());

    Run run = tpot("stats", file.toString(), "--group-by", "concurrency", "--format", "csv");

    List<String> rows = run.out().lines().toList();
    assertEquals(3, rows.size());
    // the sink's own header and cells, client health and warm-up included
    assertEquals(Csv.line(FlatRecord.columns(List.of("concurrency"))), rows.get(0));
    assertTrue(
        rows.get(0)
            .startsWith(
                "window_start,window_end,ts,series,model,label_concurrency,tpot_count,tpot_mean_ms"),
        rows.get(0));
    assertTrue(rows.get(0).contains(",client_pause_max_ms,"), rows.get(0));
    List<String> json =
        tpot("stats", file.toString(), "--group-by", "concurrency", "--format", "json")
            .out()
            .lines()
            .toList();
    for (int i = 0; i < 2; i++) {
      WindowSummary summary = WindowSummaryCodec.decode(json.get(i));
      assertEquals(Csv.line(FlatRecord.of(summary).cells(List.of("concurrency"))), rows.get(i + 1));
    }
    List<String> first = Csv.parse(rows.get(1));
    Map<String, String> cells = new LinkedHashMap<>();
    List<String> header = Csv.parse(rows.get(0));
    for (int i = 0; i < header.size(); i++) {
      cells.put(header.get(i), first.get(i));
    }
    assertEquals("2023-11-14T22:13:20Z", cells.get("window_start"));
    assertEquals("m{concurrency=20}", cells.get("series"));
    assertEquals("19", cells.get("tpot_count"));
    assertEquals("5.003", cells.get("tpot_p99_ms"));
    assertEquals("101.055", cells.get("ttft_p50_ms"));
    assertEquals("1", cells.get("requests_completed"));
  }

  @Test
  void quietLeavesTheWarningsAndTheSummariesOnly() throws Exception {
    Path file = exportFile(events());
    Path requests = dir.resolve("requests.jsonl");
    Run plain = tpot("stats", file.toString(), "--requests-out", requests.toString());
    Run quiet = tpot("stats", file.toString(), "--requests-out", requests.toString(), "-q");

    assertEquals(0, quiet.exit(), quiet.err());
    assertEquals(plain.out(), quiet.out());
    String warning = "tpot stats: events.jsonl line 3: ";
    assertTrue(quiet.err().startsWith(warning), quiet.err());
    assertEquals(1, quiet.err().lines().count(), quiet.err());
    List<String> results =
        plain
            .err()
            .lines()
            .filter(l -> !l.startsWith(warning))
            .filter(l -> !l.endsWith(" elapsed")) // a progress line, on a machine slow enough
            .toList();
    assertEquals(
        List.of(
            "tpot stats: 2 request records in " + requests,
            "tpot stats: 46 events, 1 lines skipped, 1 summaries"),
        results);
    assertEquals(2, Files.readAllLines(requests).size());
  }

  @Test
  void aFileThatIsNotWhatItsNameSaysIsNamedInTheError() throws Exception {
    Path notGzip = dir.resolve("bad.jsonl.gz");
    Files.writeString(notGzip, "{\"type\":\"start\"}\n");
    Run run = tpot("stats", notGzip.toString());
    assertEquals(2, run.exit(), run.err());
    assertEquals("tpot stats: cannot read " + notGzip + ": Not in GZIP format", run.err().strip());
  }

  @Test
  void theArchiveIsNamedTheSameWayInEveryCommand() throws Exception {
    Path file = exportFile(events());
    Run positional = tpot("stats", file.toString(), "--format", "json", "-q");
    Run option = tpot("stats", "--file", file.toString(), "--format", "json", "--quiet");
    assertEquals(0, option.exit(), option.err());
    assertEquals(positional.out(), option.out());
    assertEquals(
        "tpot stats: two files given (a.jsonl and b.jsonl): name the archive once, with --file or"
            + " as the argument",
        tpot("stats", "--file", "a.jsonl", "b.jsonl").err().strip());
    assertEquals(
        "tpot export: no archive file: tpot export --file FILE (or tpot export FILE)",
        tpot("export", "--bootstrap-server", "127.0.0.1:1").err().strip());
    assertEquals(
        "tpot stats: --to 1000 is not after --from 2000: the range would be empty",
        tpot("stats", file.toString(), "--from", "2000", "--to", "1000").err().strip());
  }

  @Test
  void aTimeRangeLimitsTheEventsLikeExportsRange() throws Exception {
    List<TokenEvent> events = events();
    Path file = exportFile(events);
    // the first request only: its events are in [T0+10, T0+300]; the final heartbeat is out
    Run run =
        tpot(
            "stats",
            file.toString(),
            "--from",
            Long.toString(T0),
            "--to",
            "2023-11-14T22:13:20.301Z",
            "--format",
            "json");
    assertEquals(0, run.exit(), run.err());
    assertTrue(run.err().contains((events.size() - 1) + " events"), run.err());
  }

  @Test
  void recordsTheAggregatorSendsToTheDeadLettersAreReportedAndSkipped() throws Exception {
    List<TokenEvent> events = events();
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      lines.add(exported(events.get(i), 0, i));
    }
    String token = exported(events.get(5), 0, 100);
    lines.add(token.replace("\"v\":1", "\"v\":2").replace("\"offset\":100", "\"offset\":101"));
    lines.add(token.replace("\"seq\":3", "\"seq\":-3").replace("\"offset\":100", "\"offset\":102"));
    Path file = withManifest(Files.write(dir.resolve("other-versions.jsonl"), lines), lines.size());

    Run run = tpot("stats", file.toString(), "--format", "json");

    assertEquals(tpot("stats", exportFile(events).toString(), "--format", "json").out(), run.out());
    int v2 = events.size() + 1;
    assertTrue(
        run.err()
            .contains(
                "other-versions.jsonl line "
                    + v2
                    + ": not a token event: version v=2 is not 1 (written by another version of"
                    + " the producer: check that both ends run the same tpot)"),
        run.err());
    assertTrue(
        run.err()
            .contains(
                "other-versions.jsonl line " + (v2 + 1) + ": not a token event: negative seq -3"),
        run.err());
  }

  /**
   * Every gap is 5 ms but req-0's last, 6.5 ms, whose chunk carries the client's lag: without it
   * the max is 1.5 ms lower, so only a threshold below 1.5 ms makes the window suspect.
   */
  @Test
  void theClientLagThresholdDecidesWhichWindowsAreSuspect() throws Exception {
    List<TokenEvent> events = new ArrayList<>(events());
    int last =
        events.indexOf(
            events.stream()
                .filter(e -> e.seq() != null && e.seq() == 19)
                .findFirst()
                .orElseThrow());
    TokenEvent stretched = events.get(last);
    events.set(
        last,
        TestEvents.content(
                stretched.ts(), "req-0", stretched.labels(), stretched.elapsedNs() + 1_500_000L, 19)
            .withClientLag(1_600));
    events.add(1, TokenEvent.heartbeat(T0 + 50, "run", "p1", T0 - 100, false, 200L, 1_500L, 2L));
    Path file = exportFile(events);
    for (String threshold : List.of("1ms", "1500us", "2ms")) {
      Run run =
          tpot("stats", file.toString(), "--format", "json", "--client-lag-threshold", threshold);
      WindowSummary s = WindowSummaryCodec.decode(run.out().lines().findFirst().orElseThrow());
      assertEquals(new java.math.BigDecimal("1.500"), s.clientLagMaxMs());
      assertEquals(1, s.clientTouched().gaps());
      assertEquals(new java.math.BigDecimal("5.003"), s.clientTouched().tpotWithout().maxMs());
      assertEquals(threshold.equals("1ms"), s.clientSuspect(), threshold);
    }
  }

  @Test
  void aBadFormatIsAOneLineError() throws Exception {
    Path file = exportFile(events());
    Run run = tpot("stats", file.toString(), "--format", "xml");
    assertEquals(2, run.exit());
    assertEquals("tpot stats: unknown format 'xml': use table, json or csv", run.err().strip());
  }
}
