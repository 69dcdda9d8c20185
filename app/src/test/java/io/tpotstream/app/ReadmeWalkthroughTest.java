package io.tpotstream.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.app.cli.Tpot;
import io.tpotstream.app.deploy.DeployFiles;
import io.tpotstream.sink.file.Csv;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A newcomer's walk-through, kept honest: the README's commands that run on the simulator are run
 * as written, each in a process of its own with the product's logging (only the ports 8000, 9092
 * and 9404 are changed to free ones), and their output is checked for the lines the README shows:
 * each {@code # → line} beside a command, and each line of the output block after a command. Lines
 * are compared by shape: numbers (times, counts, ports, latencies) and run ids stand for any, runs
 * of spaces for one, and the parts of a window line that depend on the machine's load (coalesced
 * and touched gaps, CLIENT SUSPECT, events late at source) are left out of both sides. A healthy
 * first run prints no WARN and no ERROR line and leaves no lock file.
 */
@Tag("slow")
class ReadmeWalkthroughTest {
  private static final Duration READY = Duration.ofMinutes(2);
  private static final Duration RUN = Duration.ofMinutes(6);
  private static final Pattern WARN_OR_ERROR =
      Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (WARN|ERROR) .*");

  /**
   * Warnings that are true of a loaded machine, which this one may be (the tests share it with
   * builds): the broker took longer than the aggregator's 2 s to answer. Every other WARN or ERROR
   * line fails the walk-through.
   */
  private static final List<String> LOAD_WARNINGS =
      List.of("EndOffsetWatch - cannot read the end offsets of ");

  @TempDir Path dir;

  private final List<Child> children = new ArrayList<>();
  private final Map<String, String> ports = new LinkedHashMap<>();

  /** A command of a bash block: its arguments after {@code ./tpot}, and the line it shows. */
  record Command(List<String> args, boolean background, String shows) {}

  /** A process started from a command, its stdout and stderr in one log. */
  record Child(String name, Process process, Path log) {
    List<String> lines() {
      try {
        return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
            .flatMap(l -> Stream.of(l.split("\r")))
            .toList();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @AfterEach
  void stopEveryChild() throws InterruptedException {
    for (int i = children.size() - 1; i >= 0; i--) {
      Child child = children.get(i);
      child.process().destroy();
      if (!child.process().waitFor(1, TimeUnit.MINUTES)) {
        child.process().destroyForcibly();
      }
    }
  }

  @Test
  void aRunOnTheSimulatorPrintsWhatTheReadmeShows() throws Exception {
    String readme = readme();
    List<Command> commands = commands(readme, "./tpot run --base-url");
    Child run = null;
    for (Command command : commands) {
      Child child = start(command);
      if (!command.background()) {
        assertTrue(child.process().waitFor(RUN.toMinutes(), TimeUnit.MINUTES), command.toString());
        assertEquals(0, child.process().exitValue(), String.join("\n", child.lines()));
        run = child;
      }
      if (command.shows() != null) {
        awaitShown(child, command.shows());
      }
    }
    assertTrue(run != null && run.name().startsWith("run"), "the block runs tpot run");

    List<String> shown = outputBlockAfter(readme, "./tpot run --base-url");
    assertTrue(shown.size() > 10, "the README shows what run prints: " + shown);
    Set<String> printed =
        run.lines().stream().map(ReadmeWalkthroughTest::shape).collect(Collectors.toSet());
    for (String line : shown) {
      assertTrue(
          printed.contains(shape(line)),
          "the README shows\n  "
              + line
              + "\nbut the run printed no line of that shape:\n"
              + String.join("\n", run.lines()));
    }
    assertNoWarningOrError();
    try (Stream<Path> files = Files.list(dir.resolve("out/run"))) {
      assertEquals(
          List.of(),
          files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".lock")).toList(),
          "a run that ended leaves no lock file");
    }
  }

  @Test
  void thePipelineByHandWritesTheWindowsOfWhatTheProducerMeasured() throws Exception {
    List<Command> commands = commands(readme(), "./tpot broker --port 9092 &");
    assertEquals(
        List.of("broker", "simulate", "aggregate", "sink", "produce"),
        commands.stream().map(c -> c.args().get(0)).toList());
    Child produce = null;
    Child sink = null;
    for (Command command : commands) {
      Child child = start(command);
      if (!command.background()) {
        assertTrue(child.process().waitFor(RUN.toMinutes(), TimeUnit.MINUTES), command.toString());
        assertEquals(0, child.process().exitValue(), String.join("\n", child.lines()));
        produce = child;
      }
      if (command.args().get(0).equals("sink")) {
        sink = child;
      }
      awaitShown(child, command.shows());
    }

    // the producer's own count of TPOT samples per model, which the windows must add up to
    List<String> table = produce.lines();
    String header =
        table.stream().filter(l -> l.matches("\\s+model-a\\s+model-b")).findFirst().get();
    String samples = table.stream().filter(l -> l.startsWith("samples ")).findFirst().get();
    List<String> models = List.of(header.trim().split("\\s+"));
    List<String> counts = List.of(samples.substring("samples".length()).trim().split("\\s+"));
    Map<String, Long> measured = new TreeMap<>();
    for (int i = 0; i < models.size(); i++) {
      measured.put(models.get(i), Long.parseLong(counts.get(i)));
    }
    assertTrue(measured.values().stream().allMatch(n -> n > 0), table.toString());
    Path csv = dir.resolve("out/summaries.csv");
    await().atMost(READY).until(() -> tpotCounts(csv).equals(measured));

    sink.process().destroy(); // Ctrl-C, as the README says
    assertTrue(sink.process().waitFor(1, TimeUnit.MINUTES));
    assertFalse(Files.exists(dir.resolve("out/summaries.csv.lock")), "the sink removed its lock");
    assertFalse(Files.exists(dir.resolve("out/summaries.jsonl.lock")));
    assertNoWarningOrError();
  }

  private static String readme() throws IOException {
    return Files.readString(DeployFiles.ROOT.resolve("README.md"));
  }

  /**
   * The commands of the README's bash block that holds {@code marker}, in order; a trailing {@code
   * &} runs one in the background, {@code # → text} is a line it prints.
   */
  static List<Command> commands(String readme, String marker) {
    String block = blockAround(readme, marker);
    List<Command> commands = new ArrayList<>();
    for (String line : block.lines().toList()) {
      if (!line.startsWith("./tpot ")) {
        continue;
      }
      String shows = null;
      int arrow = line.indexOf("# → ");
      String command = line;
      if (arrow >= 0) {
        shows = line.substring(arrow + "# → ".length()).strip();
        command = line.substring(0, arrow);
      } else if (line.indexOf('#') >= 0) {
        command = line.substring(0, line.indexOf('#'));
      }
      command = command.strip();
      boolean background = command.endsWith("&");
      if (background) {
        command = command.substring(0, command.length() - 1).strip();
      }
      List<String> args = List.of(command.substring("./tpot ".length()).split("\\s+"));
      commands.add(new Command(args, background, shows));
    }
    assertFalse(commands.isEmpty(), "commands in the block of " + marker);
    return commands;
  }

  /** The text of the ```bash block that holds {@code marker}. */
  private static String blockAround(String readme, String marker) {
    int at = readme.indexOf(marker);
    assertTrue(at >= 0, "the README holds " + marker);
    int start = readme.lastIndexOf("```bash\n", at) + "```bash\n".length();
    return readme.substring(start, readme.indexOf("```", start));
  }

  /** The lines of the plain ``` block right after the bash block that holds {@code marker}. */
  private static List<String> outputBlockAfter(String readme, String marker) {
    int at = readme.indexOf(marker);
    int bashEnd = readme.indexOf("```", at) + 3;
    int open = readme.indexOf("```\n", bashEnd);
    assertTrue(
        readme.substring(bashEnd, open).isBlank(), "an output block right after the commands");
    int start = open + "```\n".length();
    String block = readme.substring(start, readme.indexOf("```", start));
    return block.lines().filter(l -> !l.isBlank() && !l.equals("...")).toList();
  }

  /**
   * A line with its numbers and run id standing for any, one space for a run of them, and without
   * the parts that depend on the machine's load.
   */
  static String shape(String line) {
    String s = line.replaceAll("run-\\d{8}-\\d{6}-[0-9a-f]+", "RUN");
    s = s.replaceAll(", \\d+ coalesced gaps", "");
    s = s.replaceAll(", client lag touched \\d+ gaps? \\([\\d.]+% of the tail ≥ p99\\)", "");
    s = s.replaceAll(" +CLIENT SUSPECT.*$", "");
    s = s.replaceAll(", \\d+ late at source", "");
    s = s.replaceAll("\\d+(\\.\\d+)?", "#");
    return s.replaceAll("\\s+", " ").strip();
  }

  /** Starts {@code command} as ./tpot would, in {@code dir}, with the README's ports made free. */
  private Child start(Command command) throws IOException {
    List<String> args = new ArrayList<>();
    for (String arg : command.args()) {
      args.add(freePorts(arg));
    }
    List<String> java = new ArrayList<>();
    java.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    java.add("-Xmx384m");
    java.add("-Djava.awt.headless=true");
    // the product's logging (the test class path's log4j2-test.xml would win otherwise)
    java.add("-Dlog4j2.configurationFile=classpath:log4j2.xml");
    java.add("-cp");
    java.add(System.getProperty("java.class.path"));
    java.add(Tpot.class.getName());
    java.addAll(args);
    Path log = dir.resolve(children.size() + "-" + args.get(0) + ".log");
    ProcessBuilder builder =
        new ProcessBuilder(java).directory(dir.toFile()).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("TPOT_") || k.endsWith("_PROXY"));
    builder.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
    Child child = new Child(args.get(0), builder.redirectOutput(log.toFile()).start(), log);
    children.add(child);
    return child;
  }

  /** {@code text} with the README's fixed ports replaced by free ones (the same one each time). */
  private String freePorts(String text) {
    String out = text;
    for (String port : List.of("8000", "9092", "9404")) {
      out = out.replaceAll("\\b" + port + "\\b", ports.computeIfAbsent(port, p -> freePort()));
    }
    return out;
  }

  private static String freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return Integer.toString(s.getLocalPort());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits until {@code child} printed a line of the shape of {@code shows} (ports made free). */
  private void awaitShown(Child child, String shows) {
    String wanted = shape(freePorts(shows));
    await()
        .atMost(READY)
        .until(
            () -> {
              if (!child.process().isAlive()
                  && child.lines().stream().noneMatch(l -> shape(l).contains(wanted))) {
                throw new AssertionError(
                    child.name()
                        + " ended without '"
                        + shows
                        + "':\n"
                        + String.join("\n", child.lines()));
              }
              return child.lines().stream().anyMatch(l -> shape(l).contains(wanted));
            });
  }

  private void assertNoWarningOrError() {
    for (Child child : children) {
      assertEquals(
          List.of(),
          child.lines().stream()
              .filter(l -> WARN_OR_ERROR.matcher(l).matches())
              .filter(l -> LOAD_WARNINGS.stream().noneMatch(l::contains))
              .toList(),
          child.name() + " warned or failed; its output:\n" + String.join("\n", child.lines()));
    }
  }

  /** The CSV's TPOT samples per model, summed over its windows. */
  private static Map<String, Long> tpotCounts(Path csv) throws IOException {
    Map<String, Long> counts = new TreeMap<>();
    if (!Files.exists(csv)) {
      return counts;
    }
    List<String> lines = Files.readAllLines(csv);
    if (lines.isEmpty()) {
      return counts;
    }
    List<String> columns = Csv.parse(lines.get(0));
    int model = columns.indexOf("model");
    int tpot = columns.indexOf("tpot_count");
    for (String line : lines.subList(1, lines.size())) {
      List<String> cells = Csv.parse(line);
      counts.merge(cells.get(model), Long.parseLong(cells.get(tpot)), Long::sum);
    }
    return counts;
  }
}
