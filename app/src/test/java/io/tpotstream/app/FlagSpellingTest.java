package io.tpotstream.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    assertEquals("t", ((AggregateCommand) command("aggregate", "--topic", "t")).input);
    assertEquals("t", ((AggregateCommand) command("aggregate", "--input", "t")).input);
    assertEquals("t", ((ExportCommand) command("export", "--topic", "t")).topic);
    assertEquals("t", ((ReplayCommand) command("replay", "--topic", "t")).topic);
  }

  @Test
  void theSummariesTopicIsSummariesTopicWhereverItIsNamed() {
    assertEquals("s", ((AggregateCommand) command("aggregate", "--summaries-topic", "s")).output);
    assertEquals("s", ((AggregateCommand) command("aggregate", "--output", "s")).output);
    assertEquals("s", ((SinkCommand) command("sink", "--summaries-topic", "s")).input);
    assertEquals("s", ((SinkCommand) command("sink", "--input", "s")).input);
    assertEquals("s", ((ReportCommand) command("report", "--summaries-topic", "s")).input);
    assertEquals(
        "d", ((AggregateCommand) command("aggregate", "--dead-letter-topic", "d")).deadLetter);
  }

  @Test
  void theArchiveAndTheTimeRangeAreSpelledAlikeInExportReplayAndStats() {
    ExportCommand export =
        (ExportCommand) command("export", "--out", "a.gz", "--from", "5", "--to", "9");
    assertEquals(Path.of("a.gz"), export.fileOption);
    assertEquals(5L, export.range.fromMs());
    assertEquals(9L, export.range.toMs());
    assertEquals(Path.of("a.gz"), ((ExportCommand) command("export", "-f", "a.gz")).fileOption);
    assertEquals(Path.of("a.gz"), ((ExportCommand) command("export", "a.gz")).filePositional);
    ReplayCommand replay =
        (ReplayCommand) command("replay", "a.gz", "--from", "2026-12-02T10:00:00Z");
    assertEquals(Path.of("a.gz"), replay.filePositional);
    assertEquals(1_796_205_600_000L, replay.range.fromMs());
    StatsCommand stats = (StatsCommand) command("stats", "--file", "a.gz", "--to", "9", "-q");
    assertEquals(Path.of("a.gz"), stats.fileOption);
    assertEquals(9L, stats.range.toMs());
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
}
