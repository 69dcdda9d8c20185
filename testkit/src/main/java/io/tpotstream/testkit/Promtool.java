package io.tpotstream.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Prometheus's own checker, {@code promtool} (Debian's {@code prometheus} package), for tests. */
public final class Promtool {
  private Promtool() {}

  /** True when {@code command} is an executable on the PATH. */
  public static boolean onPath(String command) {
    return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        .anyMatch(dir -> new File(dir, command).canExecute());
  }

  /** Skips the calling test, saying why, when promtool is not installed. */
  public static void assumeInstalled() {
    assumeTrue(
        onPath("promtool"),
        "promtool not found: install Debian's prometheus package (.ci/run does) to run this check");
  }

  /** {@code promtool check metrics} on a scrape: fails with promtool's complaints. */
  public static void assertMetricsPass(String scrape) throws IOException, InterruptedException {
    String output = run(scrape, "check", "metrics");
    assertEquals("", output.trim(), "promtool check metrics:\n" + output + "\n" + scrape);
  }

  /**
   * Runs {@code promtool args...} (with {@code stdin} when not null) and fails when it exits with
   * an error.
   *
   * @return what it printed
   */
  public static String run(String stdin, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("promtool"));
    command.addAll(List.of(args));
    Process promtool = new ProcessBuilder(command).redirectErrorStream(true).start();
    if (stdin != null) {
      promtool.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    promtool.getOutputStream().close();
    String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(promtool.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
    assertEquals(0, promtool.exitValue(), String.join(" ", command) + ":\n" + output);
    return output;
  }
}
