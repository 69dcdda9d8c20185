package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulateCommandTest {
  private static String run(String... args) {
    CommandLine tpot = Tpot.commandLine();
    StringWriter err = new StringWriter();
    tpot.setErr(new PrintWriter(err));
    assertEquals(2, tpot.execute(args));
    return err.toString().strip();
  }

  @Test
  void aMissingProfilesFileIsOneLineNamingIt(@TempDir Path dir) {
    Path missing = dir.resolve("missing.json");
    assertEquals(
        "tpot simulate: profiles file " + missing + " does not exist",
        run("simulate", "--port", "0", "--profiles", missing.toString()));
  }

  @Test
  void aBadProfileIsOneLineNamingTheField(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("profiles.json");
    Files.writeString(file, "{\"models\":{\"x\":{\"ttft\":1,\"gap\":{\"type\":\"pareto\"}}}}");
    assertEquals(
        "tpot simulate: profiles file "
            + file
            + ": models.x.gap.type: must be \"constant\", \"normal\" or \"lognormal\", got"
            + " \"pareto\"",
        run("simulate", "--port", "0", "--profiles", file.toString()));
  }

  @Test
  void aPrefixCacheSizeOutOfRangeIsOneLine() {
    assertEquals(
        "tpot simulate: the prefix cache holds 0 (none) to 16777216 blocks, got -1",
        run("simulate", "--port", "0", "--prefix-cache-blocks", "-1"));
  }
}
