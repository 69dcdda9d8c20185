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
}
