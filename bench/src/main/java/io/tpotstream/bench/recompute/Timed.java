package io.tpotstream.bench.recompute;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** External processes timed from their start to their exit, as a user would time them. */
final class Timed {
  /** How long the processes took, all started at once. */
  record Run(long elapsedNs) {
    double perSecond(long records) {
      return records / (elapsedNs / 1e9);
    }
  }

  private Timed() {}

  /**
   * Starts every command at once (stdout to its file, stderr to its log) and waits for all.
   *
   * @throws IllegalStateException when one fails or times out, with the end of its log
   */
  static Run run(List<List<String>> commands, List<Path> stdouts, List<Path> logs, long timeoutS) {
    List<Process> processes = new ArrayList<>();
    long startNs = System.nanoTime();
    try {
      for (int i = 0; i < commands.size(); i++) {
        processes.add(
            new ProcessBuilder(commands.get(i))
                .redirectOutput(stdouts.get(i).toFile())
                .redirectError(logs.get(i).toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .start());
      }
      for (int i = 0; i < processes.size(); i++) {
        Process p = processes.get(i);
        long leftNs = startNs + TimeUnit.SECONDS.toNanos(timeoutS) - System.nanoTime();
        if (!p.waitFor(Math.max(1, leftNs), TimeUnit.NANOSECONDS)) {
          throw new IllegalStateException(
              "did not finish within "
                  + timeoutS
                  + " s: "
                  + describe(commands.get(i), logs.get(i)));
        }
      }
      long elapsedNs = System.nanoTime() - startNs;
      for (int i = 0; i < processes.size(); i++) {
        if (processes.get(i).exitValue() != 0) {
          throw new IllegalStateException(
              "exited with "
                  + processes.get(i).exitValue()
                  + ": "
                  + describe(commands.get(i), logs.get(i)));
        }
      }
      return new Run(elapsedNs);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + commands, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      processes.forEach(Process::destroyForcibly);
    }
  }

  /** One command. */
  static Run run(List<String> command, Path stdout, Path log, long timeoutS) {
    return run(List.of(command), List.of(stdout), List.of(log), timeoutS);
  }

  private static String describe(List<String> command, Path log) {
    String tail;
    try {
      List<String> lines = Files.readAllLines(log);
      tail = String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      tail = "(no log: " + e.getMessage() + ")";
    }
    return String.join(" ", command) + "\n" + tail;
  }
}
