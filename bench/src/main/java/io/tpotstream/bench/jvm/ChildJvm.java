package io.tpotstream.bench.jvm;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A benchmark part in its own JVM (same class path), so that its CPU, heap and pauses are its own,
 * as {@code tpot run} keeps the producer apart from the broker. The child reports on stdout with
 * lines {@code tpot-bench <kind> <json>}; its log goes to a file.
 */
public final class ChildJvm implements AutoCloseable {
  /** The prefix of a report line on a child's stdout. */
  public static final String PREFIX = "tpot-bench ";

  private static final Path SETSID = Path.of("/usr/bin/setsid");

  /** One report line: its kind and its JSON. */
  public record Line(String kind, JsonNode json) {}

  private final Process process;
  private final Path log;
  private final BlockingQueue<Line> lines = new LinkedBlockingQueue<>();
  private final Thread reader;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.reader = new Thread(this::readLines, "bench-child-reader");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code main} with {@code args} in a new JVM; its stderr goes to {@code log}. */
  public static ChildJvm start(
      Class<?> main, List<String> jvmOptions, List<String> args, Path log) {
    return start(List.of(), main, jvmOptions, args, log);
  }

  /**
   * As {@link #start(Class, List, List, Path)}, in a session of its own where util-linux's {@code
   * setsid} is at hand, as a server started from another terminal: Linux shares the CPUs between
   * sessions (autogroups) before the threads of a session, so the child's rare, short wake-ups are
   * not queued behind the busy threads of the processes it serves. No privilege is needed and no
   * priority changes; without {@code setsid} the child simply shares this session.
   */
  public static ChildJvm startInOwnSession(
      Class<?> main, List<String> jvmOptions, List<String> args, Path log) {
    List<String> prefix = Files.isExecutable(SETSID) ? List.of(SETSID.toString()) : List.of();
    return start(prefix, main, jvmOptions, args, log);
  }

  private static ChildJvm start(
      List<String> prefix, Class<?> main, List<String> jvmOptions, List<String> args, Path log) {
    List<String> command = new ArrayList<>(prefix);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Djava.awt.headless=true");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.to(log.toFile()))
              .redirectInput(ProcessBuilder.Redirect.PIPE)
              .start();
      return new ChildJvm(p, log);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a child JVM for " + main.getSimpleName(), e);
    }
  }

  private void readLines() {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (!line.startsWith(PREFIX)) {
          continue;
        }
        String rest = line.substring(PREFIX.length());
        int space = rest.indexOf(' ');
        if (space > 0) {
          lines.add(
              new Line(rest.substring(0, space), Json.MAPPER.readTree(rest.substring(space + 1))));
        }
      }
    } catch (IOException e) {
      // the child is gone; waitFor reports how it ended
    }
  }

  public boolean isAlive() {
    return process.isAlive() || !lines.isEmpty();
  }

  public long pid() {
    return process.pid();
  }

  /** The next report line, or null when none came within {@code timeout}. */
  public Line next(Duration timeout) throws InterruptedException {
    return lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Waits for the next line of {@code kind}, skipping others; fails with the log's tail. */
  public Line await(String kind, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Line line = next(Duration.ofMillis(200));
      if (line != null && line.kind().equals(kind)) {
        return line;
      }
      if (line == null && !process.isAlive() && lines.isEmpty()) {
        reader.join(1000);
        if (lines.isEmpty()) {
          throw failure("exited with " + process.exitValue() + " before reporting " + kind);
        }
      }
    }
    throw failure("did not report " + kind + " within " + timeout.toSeconds() + " s");
  }

  /** Sends one line to the child's stdin. */
  public void send(String line) {
    try {
      process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
      process.getOutputStream().flush();
    } catch (IOException e) {
      throw failure("does not read its input (" + e.getMessage() + ")");
    }
  }

  /** Closes the child's stdin: a child that reads it to its end then stops by itself. */
  public void closeInput() {
    try {
      process.getOutputStream().close();
    } catch (IOException e) {
      // already gone: waitFor says how it ended
    }
  }

  /** Asks the child to stop (SIGTERM: its shutdown hooks run) and waits for it. */
  public int stop(Duration timeout) throws InterruptedException {
    process.destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor();
    }
    return process.exitValue();
  }

  /** Waits for the child to exit on its own. */
  public int waitFor(Duration timeout) throws InterruptedException {
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw failure("still running after " + timeout.toSeconds() + " s");
    }
    return process.exitValue();
  }

  /** An exception naming the child and quoting the end of its log. */
  public IllegalStateException failure(String what) {
    return new IllegalStateException(
        "child JVM " + process.pid() + " " + what + "; its log ends:\n" + tail());
  }

  private String tail() {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - 15), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }

  /** Prints a report line (in a child). */
  public static void report(String kind, Object value) {
    try {
      String json = Json.MAPPER.writeValueAsString(value);
      synchronized (System.out) {
        System.out.println(PREFIX + kind + " " + json);
        System.out.flush();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
