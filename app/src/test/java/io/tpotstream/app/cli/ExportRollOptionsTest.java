package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code export --roll-size/--roll-every}: sizes and durations as users write them, with --follow.
 */
class ExportRollOptionsTest {
  private static ExportCommand export(String... args) {
    String[] all = new String[args.length + 1];
    all[0] = "export";
    System.arraycopy(args, 0, all, 1, args.length);
    return (ExportCommand)
        Tpot.commandLine().parseArgs(all).subcommand().commandSpec().userObject();
  }

  @Test
  void aSizeIsReadInDecimalOrBinaryUnits() {
    ByteSizeConverter sizes = new ByteSizeConverter();
    assertEquals(500_000L, sizes.convert("500000"));
    assertEquals(64_000L, sizes.convert("64KB"));
    assertEquals(256_000_000L, sizes.convert("256MB"));
    assertEquals(256_000_000L, sizes.convert("256mb"));
    assertEquals(1_500_000_000L, sizes.convert("1.5GB"));
    assertEquals(256L << 20, sizes.convert("256MiB"));
    assertEquals(256L << 20, sizes.convert("256M"));
    assertEquals(1L << 30, sizes.convert("1GiB"));
    for (String wrong : new String[] {"", "0", "MB", "12XB", "-1MB", "1iB", "0.1"}) {
      TypeConversionException e =
          assertThrows(TypeConversionException.class, () -> sizes.convert(wrong), wrong);
      assertTrue(e.getMessage().startsWith("invalid size '" + wrong + "'"), e.getMessage());
    }
  }

  @Test
  void theRollFlagsAreReadAndNeedFollow() {
    ExportCommand rolled =
        export("--follow", "--roll-size", "256MB", "--roll-every", "1h", "-f", "run.jsonl.zst");
    assertEquals(256_000_000L, rolled.rollSize);
    assertEquals(Duration.ofHours(1), rolled.rollEvery);
    ExportCommand plain = export("-f", "run.jsonl.zst");
    assertEquals(null, plain.rollSize);
    assertEquals(null, plain.rollEvery);

    StringWriter err = new StringWriter();
    CommandLine cmd = Tpot.commandLine();
    cmd.setErr(new PrintWriter(err));
    cmd.setOut(new PrintWriter(new StringWriter()));
    int exit = cmd.execute("export", "--roll-size", "1MB", "-f", "run.jsonl.zst");
    assertEquals(2, exit, err.toString());
    assertTrue(
        err.toString().contains("--roll-size and --roll-every need --follow"), err.toString());
  }
}
