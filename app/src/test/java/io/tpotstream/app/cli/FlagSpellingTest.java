package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** Topics, time ranges and the archive are spelled the same way in every command. */
class FlagSpellingTest {
  private static Object command(String... args) {
    ParseResult parsed = Tpot.commandLine().parseArgs(args);
    return parsed.subcommand().commandSpec().userObject();
  }

  @Test
  void theTokenEventsTopicIsTopicWhereverItIsNamed() {
    assertEquals("t", ((AggregateCommand) command("aggregate", "--topic", "t")).events.topic);
    assertEquals("t", ((AggregateCommand) command("aggregate", "--input", "t")).events.topic);
    assertEquals("t", ((ExportCommand) command("export", "--topic", "t")).events.topic);
    assertEquals("t", ((ReplayCommand) command("replay", "--topic", "t")).topic);
  }

  @Test
  void theSummariesTopicIsSummariesTopicWhereverItIsNamed() {
    assertEquals(
        "s",
        ((AggregateCommand) command("aggregate", "--summaries-topic", "s")).summariesTopic.topic);
    assertEquals(
        "s", ((AggregateCommand) command("aggregate", "--output", "s")).summariesTopic.topic);
    assertEquals(
        "s", ((SinkCommand) command("sink", "--summaries-topic", "s")).summariesTopic.topic());
    assertEquals("s", ((SinkCommand) command("sink", "--input", "s")).summariesTopic.topic());
    assertEquals(
        "s", ((ReportCommand) command("report", "--summaries-topic", "s")).summariesTopic.topic());
    assertEquals(
        "d", ((AggregateCommand) command("aggregate", "--dead-letter-topic", "d")).deadLetter);
  }

  @Test
  void anOldSpellingAndItsNewOneTogetherAreRefusedNotSettledByTheirOrder() {
    assertEquals(
        "tpot aggregate: --topic and --input both given: --input is the old spelling of --topic;"
            + " give it once",
        refusal("aggregate", "--topic", "a", "--input", "b"));
    assertEquals(
        "tpot aggregate: --summaries-topic and --output both given: --output is the old spelling"
            + " of --summaries-topic; give it once",
        refusal("aggregate", "--output", "b", "--summaries-topic", "a"));
    assertEquals(
        "tpot export: --file and --out both given: --out is the old spelling of --file; give it"
            + " once",
        refusal("export", "-f", "a.gz", "--out", "a.gz"));
    for (String command : new String[] {"sink", "report"}) {
      assertEquals(
          "tpot "
              + command
              + ": --summaries-topic and --input both given: --input is the old spelling of"
              + " --summaries-topic; give it once",
          refusal(command, "--summaries-topic", "a", "--input", "b"));
    }
  }

  /** What the command says on stderr when it refuses its arguments (before any connection). */
  private static String refusal(String... args) {
    java.io.StringWriter err = new java.io.StringWriter();
    CommandLine cmd = Tpot.commandLine();
    cmd.setErr(new java.io.PrintWriter(err));
    cmd.setOut(new java.io.PrintWriter(new java.io.StringWriter()));
    int exit = cmd.execute(args);
    assertEquals(2, exit, err.toString());
    return err.toString().strip();
  }

  @Test
  void theArchiveAndTheTimeRangeAreSpelledAlikeInExportReplayStatsAndCompare() {
    ExportCommand export =
        (ExportCommand) command("export", "--out", "a.gz", "--from", "5", "--to", "9");
    assertEquals(Path.of("a.gz"), export.archive.option);
    assertEquals(5L, export.range.fromMs());
    assertEquals(9L, export.range.toMs());
    assertEquals(Path.of("a.gz"), ((ExportCommand) command("export", "-f", "a.gz")).archive.option);
    assertEquals(Path.of("a.gz"), ((ExportCommand) command("export", "a.gz")).archive.positional);
    ReplayCommand replay =
        (ReplayCommand) command("replay", "a.gz", "--from", "2026-12-02T10:00:00Z");
    assertEquals(Path.of("a.gz"), replay.archive.positional);
    assertEquals(1_796_205_600_000L, replay.range.fromMs());
    StatsCommand stats = (StatsCommand) command("stats", "--file", "a.gz", "--to", "9", "-q");
    assertEquals(Path.of("a.gz"), stats.archive.option);
    assertEquals(9L, stats.range.toMs());
    CompareCommand compare =
        (CompareCommand) command("compare", "a.gz", "b.gz", "--from", "5", "--to", "9", "-q");
    assertEquals(5L, compare.range.fromMs());
    assertEquals(9L, compare.range.toMs());
    assertEquals(true, compare.progressOptions.quiet);
  }

  @Test
  void aSharedFlagKeepsEachCommandsDefaultAndItsOldSpellings() {
    assertEquals(9092, ((BrokerCommand) command("broker")).port.port);
    assertEquals(8000, ((SimulateCommand) command("simulate")).port.port);
    assertEquals(1_000_000L, ((ProduceCommand) command("produce")).outageBuffer.events);
    ProxyCommand proxy = (ProxyCommand) command("proxy", "--listen", "0", "--upstream", "http://h");
    assertEquals(1_000_000L, proxy.outageBuffer.events);
    assertEquals("tpot.token-events", proxy.events.topic);
    assertEquals(3, proxy.partitions.partitions);
    AggregateCommand aggregate = (AggregateCommand) command("aggregate");
    assertEquals("tpot.token-events", aggregate.events.topic);
    assertEquals("tpot.window-summaries", aggregate.summariesTopic.topic);
    assertEquals("s", ((ReportCommand) command("report", "--input", "s")).summariesTopic.topic());
    assertEquals(Path.of("out/summaries.csv"), ((SinkCommand) command("sink")).csv.file.csv);
    assertEquals(Path.of("out"), ((ReportCommand) command("report")).outDir.out);
    // run and demo write beside, never into, the files a tpot sink writes by default
    assertEquals(Path.of("out/run"), ((RunCommand) command("run")).runOptions.outDir.out);
    assertEquals(Path.of("out/demo"), ((DemoCommand) command("demo")).runOptions.outDir.out);
    assertEquals(9404, ((SinkCommand) command("sink")).prometheus.port.port);
    RunCommand run = (RunCommand) command("run", "--window", "1m", "--group-by", "a,b");
    assertEquals(0, run.runOptions.prometheusPort.port);
    assertEquals(java.time.Duration.ofMinutes(1), run.runOptions.windowSize());
    assertEquals(java.util.List.of("a", "b"), run.runOptions.series.groupBy);
    assertEquals(
        java.time.Duration.ofSeconds(10),
        ((StatsCommand) command("stats")).windowOptions.settings().windowSize());
  }

  @Test
  void theLoadAndTrafficFlagsSetTheConfigKeysTheirNamesSpell() {
    ProduceCommand produce =
        (ProduceCommand)
            command(
                ("produce --concurrency 4 --total-requests 9 --max-tokens 12 --rate 2 --arrival"
                        + " poisson --duration 90s --warmup 0 --dataset sample --input-len 256"
                        + " --output-len 128-1024 --schedule 0s:2/s --sweep rate=1,2"
                        + " --requests-out r.jsonl")
                    .split(" "));
    java.util.Map<String, String> keys = new java.util.TreeMap<>();
    produce.load.putInto(keys);
    produce.traffic.putInto(keys);
    assertEquals(
        "{arrival=poisson, concurrency=4, dataset=sample, duration=90s, input_len=256,"
            + " max_tokens=12, output_len=128-1024, rate=2.0, schedule=0s:2/s, sweep=rate=1,2,"
            + " total_requests=9, warmup=0}",
        keys.toString());
    assertEquals(Path.of("r.jsonl"), produce.traffic.requestsOut.file);
    RunCommand run = (RunCommand) command("run", "--max-tokens", "5");
    keys.clear();
    run.load.putInto(keys);
    run.traffic.putInto(keys);
    assertEquals("{max_tokens=5}", keys.toString());
  }

  @Test
  void aTimeThatIsNotOneSaysHowToWriteIt() {
    CommandLine.ParseResult parsed = Tpot.commandLine().parseArgs("export", "--from", "yesterday");
    ExportCommand export = (ExportCommand) parsed.subcommand().commandSpec().userObject();
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, export.range::fromMs);
    assertEquals(
        "--from 'yesterday' is not a time: use an ISO-8601 instant (2026-12-02T10:00:00Z) or epoch"
            + " ms",
        e.getMessage());
  }

  @Test
  void quietIsTheSameFlagInEveryLongRunningCommand() {
    // the field, not mode(): with --quiet, mode() turns the log level down for the whole JVM
    assertTrue(((RunCommand) command("run", "--quiet")).runOptions.progress.quiet);
    assertTrue(((DemoCommand) command("demo", "-q")).runOptions.progress.quiet);
    assertTrue(((AggregateCommand) command("aggregate", "-q")).progress.quiet);
    // every long-running command takes it (Tpot turns INFO lines off before the command runs)
    assertTrue(((ProduceCommand) command("produce", "-q")).progressOptions.quiet);
    assertTrue(((SinkCommand) command("sink", "-q")).progress.quiet);
    assertTrue(
        ((ProxyCommand) command("proxy", "--listen", "0", "--upstream", "http://h", "--quiet"))
            .progress
            .quiet);
    assertTrue(((ExportCommand) command("export", "-q")).progress.quiet);
    // without it, one rule decides: stderr a terminal or not (never QUIET)
    assertEquals(
        io.tpotstream.common.progress.Progress.Mode.auto(false),
        ((DemoCommand) command("demo")).runOptions.progress.mode());
  }
}
