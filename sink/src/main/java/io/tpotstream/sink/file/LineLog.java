package io.tpotstream.sink.file;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An append-only file of UTF-8 lines that survives a crash at any byte: on open, a last line
 * without its newline (a write the crash tore) is cut off; appended lines are buffered and reach
 * the disk (written and fsynced) on {@link #sync()}.
 */
final class LineLog implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(LineLog.class);
  private static final int TAIL_CHUNK = 8192;

  private final Path path;
  private final FileChannel channel;
  private final StringBuilder pending = new StringBuilder();
  private long sizeBytes;

  private LineLog(Path path, FileChannel channel, long sizeBytes) {
    this.path = path;
    this.channel = channel;
    this.sizeBytes = sizeBytes;
  }

  /**
   * Opens (or creates) {@code path}, cuts a torn last line and hands every complete line to {@code
   * existing}, in file order.
   */
  static LineLog open(Path path, Consumer<String> existing) {
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      FileChannel channel =
          FileChannel.open(
              path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
      long complete = endOfLastCompleteLine(channel);
      if (complete < channel.size()) {
        LOG.warn(
            "{}: cut a torn last line ({} bytes) left by an interrupted write",
            path,
            channel.size() - complete);
        channel.truncate(complete);
        channel.force(true);
      }
      channel.position(0);
      BufferedReader reader =
          new BufferedReader(
              new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        existing.accept(line);
      }
      channel.position(complete);
      return new LineLog(path, channel, complete);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot open " + path + " for appending: " + e.getMessage(), e);
    }
  }

  /**
   * Hands every complete line of {@code path} to {@code lines} without changing the file (a torn or
   * still-being-written last line is ignored), so a file can be read while the sink appends to it.
   */
  static void readComplete(Path path, Consumer<String> lines) {
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long complete = endOfLastCompleteLine(channel);
      BufferedReader reader =
          new BufferedReader(
              new InputStreamReader(
                  new BufferedInputStream(Channels.newInputStream(channel.position(0))),
                  StandardCharsets.UTF_8));
      long read = 0;
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        read += line.getBytes(StandardCharsets.UTF_8).length + 1;
        if (read > complete) {
          break;
        }
        lines.accept(line);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  /** Buffers one line (without its newline); it reaches the file on {@link #sync()}. */
  void append(String line) {
    pending.append(line).append('\n');
  }

  /** Writes the buffered lines and forces them to the disk. */
  void sync() {
    if (pending.length() == 0) {
      return;
    }
    ByteBuffer bytes = StandardCharsets.UTF_8.encode(pending.toString());
    try {
      while (bytes.hasRemaining()) {
        sizeBytes += channel.write(bytes);
      }
      channel.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to " + path + ": " + e.getMessage(), e);
    }
    pending.setLength(0);
  }

  boolean isEmpty() {
    return sizeBytes == 0 && pending.length() == 0;
  }

  Path path() {
    return path;
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      LOG.warn("cannot close {}: {}", path, e.getMessage());
    }
  }

  private static long endOfLastCompleteLine(FileChannel channel) throws IOException {
    long end = channel.size();
    ByteBuffer chunk = ByteBuffer.allocate(TAIL_CHUNK);
    while (end > 0) {
      long start = Math.max(0, end - TAIL_CHUNK);
      chunk.clear().limit((int) (end - start));
      channel.read(chunk, start);
      for (int i = chunk.position() - 1; i >= 0; i--) {
        if (chunk.get(i) == '\n') {
          return start + i + 1;
        }
      }
      end = start;
    }
    return 0;
  }
}
