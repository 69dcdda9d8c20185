package io.tpotstream.common.jvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The one way tpot starts a class in a JVM of its own, on this JVM's class path and Java: {@code
 * tpot run} keeps its producer apart from the broker and the aggregator (docs/design.md, "Scale"),
 * and the benchmarks measure a part's CPU, heap and pauses alone. Callers choose where stderr goes
 * and what the child's stdout lines mean.
 */
public final class JavaLauncher {
  private JavaLauncher() {}

  /**
   * A process builder for {@code main} with {@code args}: this JVM's {@code java}, headless, {@code
   * jvmOptions}, this JVM's class path; {@code prefix} (e.g. {@code setsid}) goes before it.
   */
  public static ProcessBuilder builder(
      List<String> prefix, Class<?> main, List<String> jvmOptions, List<String> args) {
    List<String> command = new ArrayList<>(prefix);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Djava.awt.headless=true");
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    return new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.PIPE);
  }

  /**
   * Hands each line of the child's stdout to {@code lines} on a daemon thread named {@code name},
   * until the child closes it.
   */
  public static Thread readStdout(Process process, String name, Consumer<String> lines) {
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  lines.accept(line);
                }
              } catch (IOException e) {
                // the child is gone: its exit code says how it ended
              }
            },
            name);
    reader.setDaemon(true);
    reader.start();
    return reader;
  }
}
