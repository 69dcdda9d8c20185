package io.tpotstream.app.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The product does not carry the benchmarks: JMH and the harness stay in the bench program. */
class ProductClassPathTest {
  @Test
  void neitherJmhNorTheHarnessIsOnTheProductsClassPath() {
    assertThrows(ClassNotFoundException.class, () -> Class.forName("org.openjdk.jmh.Main"));
    assertThrows(
        ClassNotFoundException.class, () -> Class.forName("io.tpotstream.bench.BenchSuite"));
  }

  @Test
  void tpotBenchInTheProductPointsToTheLauncher() {
    StringWriter err = new StringWriter();
    int code = Tpot.commandLine().setErr(new PrintWriter(err)).execute("bench", "--quick");
    assertEquals(2, code);
    assertTrue(err.toString().contains("./tpot bench --help"), err.toString());
  }

  @Test
  void helpStillListsBench() {
    StringWriter out = new StringWriter();
    Tpot.commandLine().setOut(new PrintWriter(out)).execute("--help");
    assertTrue(out.toString().contains("bench"), out.toString());
  }
}
