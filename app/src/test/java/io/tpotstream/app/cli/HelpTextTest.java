package io.tpotstream.app.cli;

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
  void eachCommandsHelpOfOutSaysWhatThatCommandWritesThere() {
    CommandLine tpot = Tpot.commandLine();
    String report = tpot.getSubcommands().get("report").getUsageMessage();
    // the option's paragraph: its line and the indented lines under it
    String out = report.substring(report.indexOf("\n      --out=") + 1);
    out = out.substring(0, out.indexOf("\n  -", 1));
    assertEquals(
        "--out=<out> Directory for report.html and the PNG charts (default: out).",
        out.strip().replaceAll("\\s+", " "));
    for (String command : List.of("run", "demo")) {
      String usage = tpot.getSubcommands().get(command).getUsageMessage().replaceAll("\\s+", " ");
      assertTrue(usage.contains("go into --out"), usage);
    }
  }
}
