package io.tpotstream.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's help renders as written: picocli reads descriptions as format strings, and a lone
 * {@code %} makes it print a warning and the raw text instead.
 */
class HelpTextTest {
  @Test
  void everyCommandsHelpRendersWithoutAWarning() {
    List<CommandLine> commands = new ArrayList<>();
    CommandLine tpot = Tpot.commandLine();
    commands.add(tpot);
    commands.addAll(tpot.getSubcommands().values());
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    PrintStream err = System.err;
    int rendered = 0;
    System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
    try {
      for (CommandLine command : commands) {
        String usage = command.getUsageMessage();
        assertTrue(usage.contains("Usage:"), usage);
        rendered++;
      }
    } finally {
      System.setErr(err);
    }
    assertTrue(rendered > 15, "commands rendered: " + rendered);
    assertEquals("", warnings.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aCommandLineNamingOneCommandBuildsOnlyThatOneAndTheHelpBuildsThemAll() {
    int all = Tpot.commandLine().getSubcommands().size();
    assertTrue(all > 15, "subcommands: " + all);
    assertEquals(
        List.of("stats"),
        List.copyOf(
            Tpot.commandLine(new String[] {"stats", "--file", "x.jsonl"})
                .getSubcommands()
                .keySet()));
    assertEquals(
        List.of("aggregate"),
        List.copyOf(
            Tpot.commandLine(new String[] {"--gc-log", "aggregate", "--topic", "t"})
                .getSubcommands()
                .keySet()));
    assertEquals(
        List.of("stats"),
        List.copyOf(
            Tpot.commandLine(new String[] {"--gc-log", "gc.log", "stats", "x.jsonl"})
                .getSubcommands()
                .keySet()));
    for (String[] line :
        List.of(
            new String[] {},
            new String[] {"--help"},
            new String[] {"help", "stats"},
            new String[] {"stast", "--file", "x"})) {
      assertEquals(all, Tpot.commandLine(line).getSubcommands().size(), String.join(" ", line));
    }
    assertEquals(
        Tpot.commandLine().getUsageMessage(),
        Tpot.commandLine(new String[] {"--help"}).getUsageMessage());
  }
}
