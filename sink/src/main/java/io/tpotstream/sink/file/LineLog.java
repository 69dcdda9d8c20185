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
 * An append-only file of UTF-8 lines that survives a crash at any byte and has one writer: on open
 * the file is locked ({@link WriterLock}; a second writer fails at once, before touching it), a
 * last line without its newline (a write the crash tore) is cut off, and only the first line and
 * the last lines are read back (start-up does not grow with the file). Appended lines are buffered
 * and reach the disk (written in append mode and fsynced) on {@link #sync()}.
 */
final class LineLog implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(LineLog.class);
  private static final int TAIL_CHUNK = 8192;

  private final Path path;
  private final WriterLock lock;
  private final FileChannel channel;
  private final StringBuilder pending = new StringBuilder();
  private long sizeBytes;

  private LineLog(Path path, WriterLock lock, FileChannel channel, long sizeBytes) {
    this.path = path;
    this.lock = lock;
    this.channel = channel;
    this.sizeBytes = sizeBytes;
  }

  /**
   * Locks and opens (or creates) {@code path}, cuts a torn last line, then hands the first complete
   * line to {@code head} (a header; null when the file has none) and the last {@code tailLines}
   * complete lines after it to {@code tail}, in file order.
   *
   * @throws FileInUseException when another writer holds the file
   */
  static LineLog open(Path path, long tailLines, Consumer<String> head, Consumer<String> tail) {
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the directory of " + path, e);
    }
    WriterLock lock = WriterLock.acquire(path);
    try {
      FileChannel channel =
          FileChannel.open(
              path, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
      try (FileChannel reader = FileChannel.open(path, StandardOpenOption.READ)) {
        long complete = endOfLastCompleteLine(reader);
        if (complete < reader.size()) {
          LOG.warn(
              "{}: cut a torn last line ({} bytes) left by an interrupted write",
              path,
              reader.size() - complete);
          channel.truncate(complete);
          channel.force(true);
        }
        long firstEnd = head == null ? 0 : endOfFirstLine(reader, complete);
        if (firstEnd > 0) {
          head.accept(linesFrom(reader, 0).readLine());
        }
        long from = Math.max(firstEnd, startOfLastLines(reader, complete, tailLines));
        BufferedReader lines = linesFrom(reader, from);
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          tail.accept(line);
        }
        return new LineLog(path, lock, channel, complete);
      } catch (IOException | RuntimeException e) {
        channel.close();
        throw e;
      }
    } catch (IOException e) {
      lock.close();
      throw new UncheckedIOException(
          "cannot open " + path + " for appending: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      lock.close();
      throw e;
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
    lock.close();
  }

  /** The lines of {@code channel} from byte {@code from} to its end. */
  private static BufferedReader linesFrom(FileChannel channel, long from) throws IOException {
    return new BufferedReader(
        new InputStreamReader(
            Channels.newInputStream(channel.position(from)), StandardCharsets.UTF_8));
  }

  /** The end (after its newline) of the first line, or 0 when no line is complete. */
  private static long endOfFirstLine(FileChannel channel, long complete) throws IOException {
    ByteBuffer chunk = ByteBuffer.allocate(TAIL_CHUNK);
    for (long start = 0; start < complete; start += TAIL_CHUNK) {
      chunk.clear().limit((int) Math.min(TAIL_CHUNK, complete - start));
      channel.read(chunk, start);
      for (int i = 0; i < chunk.position(); i++) {
        if (chunk.get(i) == '\n') {
          return start + i + 1;
        }
      }
    }
    return 0;
  }

  /** Where the last {@code lines} complete lines before {@code complete} start (0: all of them). */
  private static long startOfLastLines(FileChannel channel, long complete, long lines)
      throws IOException {
    if (lines <= 0) {
      return complete;
    }
    if (lines == Long.MAX_VALUE) {
      return 0;
    }
    long newlines = 0;
    long end = complete - 1; // the last line's own newline is not a boundary before it
    ByteBuffer chunk = ByteBuffer.allocate(TAIL_CHUNK);
    while (end > 0) {
      long start = Math.max(0, end - TAIL_CHUNK);
      chunk.clear().limit((int) (end - start));
      channel.read(chunk, start);
      for (int i = chunk.position() - 1; i >= 0; i--) {
        if (chunk.get(i) == '\n' && ++newlines == lines) {
          return start + i + 1;
        }
      }
      end = start;
    }
    return 0;
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
