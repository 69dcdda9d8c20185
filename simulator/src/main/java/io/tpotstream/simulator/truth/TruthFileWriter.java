package io.tpotstream.simulator.truth;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Appends one JSON line per sent chunk ({@code requestId, model, seq, sentNs, tokens, intendedNs,
 * pacingErrorNs}, and on a request's first chunk its {@code promptTokens} and, with a prefix cache,
 * {@code cachedTokens}) from a background thread: event loops only enqueue, never touch the disk.
 * When the queue is full the line is dropped and counted, never waited for.
 */
final class TruthFileWriter implements AutoCloseable {
  private static final int QUEUE_CAPACITY = 1 << 20;

  record Line(
      String requestId,
      String model,
      int seq,
      long sentNs,
      int tokens,
      long intendedNs,
      long pacingErrorNs,
      Integer promptTokens,
      Integer cachedTokens) {}

  private final Path path;
  private final Writer out;
  private final BlockingQueue<Line> queue = new ArrayBlockingQueue<>(QUEUE_CAPACITY);
  private final AtomicLong written = new AtomicLong();
  private final AtomicLong dropped = new AtomicLong();
  private final Thread thread;
  private volatile boolean closing;
  private volatile IOException failure;

  private TruthFileWriter(Path path, Writer out) {
    this.path = path;
    this.out = out;
    this.thread = new Thread(this::loop, "truth-file-writer");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Opens {@code path} for appending (created if missing).
   *
   * @throws IllegalArgumentException when it cannot be opened
   */
  static TruthFileWriter open(Path path) {
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Writer out =
          new BufferedWriter(
              Files.newBufferedWriter(
                  path,
                  StandardCharsets.UTF_8,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.APPEND,
                  StandardOpenOption.WRITE),
              1 << 16);
      return new TruthFileWriter(path, out);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot open the truth file " + path + " for appending: " + e, e);
    }
  }

  void offer(Line line) {
    if (!queue.offer(line)) {
      dropped.incrementAndGet();
    }
  }

  TruthReport.FileStatus status() {
    return new TruthReport.FileStatus(path.toString(), written.get(), dropped.get());
  }

  private void loop() {
    StringBuilder text = new StringBuilder(160);
    JsonStringEncoder encoder = JsonStringEncoder.getInstance();
    try {
      while (true) {
        Line line = queue.poll();
        if (line == null) {
          out.flush();
          if (closing && queue.isEmpty()) {
            return;
          }
          line = queue.poll(50, TimeUnit.MILLISECONDS);
          if (line == null) {
            continue;
          }
        }
        text.setLength(0);
        text.append("{\"requestId\":\"");
        encoder.quoteAsString(line.requestId(), text);
        text.append("\",\"model\":\"");
        encoder.quoteAsString(line.model(), text);
        text.append("\",\"seq\":").append(line.seq());
        text.append(",\"sentNs\":").append(line.sentNs());
        text.append(",\"tokens\":").append(line.tokens());
        text.append(",\"intendedNs\":").append(line.intendedNs());
        text.append(",\"pacingErrorNs\":").append(line.pacingErrorNs());
        if (line.promptTokens() != null) {
          text.append(",\"promptTokens\":").append(line.promptTokens());
        }
        if (line.cachedTokens() != null) {
          text.append(",\"cachedTokens\":").append(line.cachedTokens());
        }
        text.append("}\n");
        out.append(text);
        written.incrementAndGet();
      }
    } catch (IOException e) {
      failure = e;
      System.err.println("tpot simulate: writing the truth file " + path + " failed: " + e);
      dropped.addAndGet(queue.size());
      queue.clear();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes what is queued, then closes the file. */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      out.close();
    } catch (IOException e) {
      if (failure == null) {
        System.err.println("tpot simulate: closing the truth file " + path + " failed: " + e);
      }
    }
  }
}
