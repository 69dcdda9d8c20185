package io.tpotstream.app.run;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A child JVM on this JVM's classpath, so that the broker's and the aggregator's garbage collection
 * never pauses the producer (DESIGN.md, "Scale"). The child lives as long as its stdin is open:
 * when this JVM exits, for any reason, the pipe closes and the child shuts down by itself.
 */
final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final OutputStream stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  private ChildJvm(Process process, Consumer<String> echo) {
    this.process = process;
    this.stdin = process.getOutputStream();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                  lines.add(line);
                  echo.accept(line);
                }
              } catch (IOException e) {
                // the child is gone; waitFor() tells how it ended
              }
            },
            "child-jvm-stdout");
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code mainClass} with {@code args}; its stderr goes to ours, each stdout line to {@code
   * echo} and to {@link #awaitLine}.
   */
  static ChildJvm start(
      Class<?> mainClass, List<String> jvmArgs, List<String> args, Consumer<String> echo)
      throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmArgs);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(args);
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    // the live view speaks for the child: its own INFO lines would only interleave with it
    builder.environment().putIfAbsent("TPOT_LOG_LEVEL", "WARN");
    Process process = builder.start();
    ChildJvm child = new ChildJvm(process, echo);
    Runtime.getRuntime().addShutdownHook(new Thread(child::close, "child-jvm-stop"));
    return child;
  }

  /**
   * Waits for a stdout line starting with {@code prefix}; fails if the child exits first, or says a
   * line starting with {@code failurePrefix} (its message is the exception's).
   */
  String awaitLine(String prefix, String failurePrefix, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null && line.startsWith(prefix)) {
        return line;
      }
      if (line != null && line.startsWith(failurePrefix)) {
        throw new ChildFailedException(line.substring(failurePrefix.length()));
      }
      if (line == null && !process.isAlive() && lines.isEmpty()) {
        throw new IllegalStateException(
            "the backend JVM exited with code " + process.exitValue() + " before it was ready");
      }
    }
    throw new IllegalStateException("the backend JVM was not ready within " + timeout);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Sends one line to the child's stdin. */
  void send(String line) throws IOException {
    stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
  }

  /** The child said it failed (the rest of its line). */
  static final class ChildFailedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ChildFailedException(String message) {
      super(message);
    }
  }

  /** Closes the child's stdin (it shuts down cleanly) and waits; kills it if it does not exit. */
  @Override
  public void close() {
    try {
      stdin.close();
    } catch (IOException e) {
      // already closed
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
