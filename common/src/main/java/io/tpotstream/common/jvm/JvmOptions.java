package io.tpotstream.common.jvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A command's JVM options, from {@code jvm/<command>.options} (in the repository, and in this jar):
 * a heap line and a line of the rest. The {@code tpot} launcher reads the same files; a JVM this
 * process starts for a command (tpot run's backend, the benchmarks' parts) takes them here, with
 * the same overrides: {@code TPOT_HEAP_OPTS} replaces the heap line, {@code
 * TPOT_JVM_PERFORMANCE_OPTS} the other line, and {@code TPOT_JAVA_OPTS} comes last.
 */
public final class JvmOptions {
  private JvmOptions() {}

  /** {@code command}'s options with {@code env}'s overrides; empty when it has no options file. */
  public static List<String> of(String command, Map<String, String> env) {
    List<String> lines = lines(command);
    if (lines.isEmpty()) {
      return words(env.get("TPOT_JAVA_OPTS"));
    }
    List<String> options = new ArrayList<>();
    String heap = env.get("TPOT_HEAP_OPTS");
    String performance = env.get("TPOT_JVM_PERFORMANCE_OPTS");
    options.addAll(words(heap != null ? heap : lines.get(0)));
    options.addAll(words(performance != null ? performance : lines.size() > 1 ? lines.get(1) : ""));
    options.addAll(words(env.get("TPOT_JAVA_OPTS")));
    return options;
  }

  /** {@code command}'s options as its file gives them, without overrides. */
  public static List<String> of(String command) {
    return of(command, Map.of());
  }

  private static List<String> lines(String command) {
    InputStream in = JvmOptions.class.getResourceAsStream("/jvm/" + command + ".options");
    if (in == null) {
      return List.of();
    }
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      List<String> lines = reader.lines().filter(l -> !l.startsWith("#")).toList();
      // a file that links to another in the repository (demo.options -> run.options) is packed
      // in the jar as the name of the file it links to
      if (lines.size() == 1 && lines.get(0).endsWith(".options")) {
        return lines(lines.get(0).substring(0, lines.get(0).length() - ".options".length()));
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> words(String text) {
    return text == null || text.isBlank()
        ? List.of()
        : Arrays.stream(text.trim().split("\\s+")).toList();
  }
}
