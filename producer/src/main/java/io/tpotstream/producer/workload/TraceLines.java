package io.tpotstream.producer.workload;

import io.tpotstream.producer.config.ConfigException;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPInputStream;

/**
 * The lines of a trace file ({@code .gz} too), each at most {@link TraceBounds#MAX_LINE_BYTES}
 * bytes: a longer one stops the reading at that line, having held no more than the bound. LF and
 * CRLF line ends; a UTF-8 byte order mark at the start is skipped; blank lines are skipped. Not
 * thread-safe.
 */
final class TraceLines implements Closeable {
  private final InputStream in;
  private final String where;
  private final byte[] buffer = new byte[1 << 16];
  private int pos;
  private int end;
  private byte[] line = new byte[1024];
  private int length;
  private long number;
  private boolean first = true;

  private TraceLines(InputStream in, String where) {
    this.in = in;
    this.where = where;
  }

  /**
   * Opens {@code file}; {@code where} starts every message ({@code config key 'trace': FILE}).
   *
   * @throws ConfigException when the file cannot be opened
   */
  static TraceLines open(Path file, String where) {
    try {
      InputStream raw = Files.newInputStream(file);
      InputStream in =
          file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
      return new TraceLines(in, where);
    } catch (NoSuchFileException e) {
      throw new ConfigException(where + " not found: check the path");
    } catch (IOException e) {
      throw new ConfigException(where + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  /** Lines of {@code in}, for tests. */
  static TraceLines of(InputStream in, String where) {
    return new TraceLines(in, where);
  }

  /**
   * The next line that is not blank (its bytes are {@link #bytes()}, {@link #length()} of them), or
   * false at the end of the file.
   *
   * @throws ConfigException for a line longer than the bound, or a file that cannot be read
   */
  boolean next() {
    try {
      while (true) {
        if (!read()) {
          return false;
        }
        if (!blank()) {
          return true;
        }
      }
    } catch (IOException e) {
      throw new ConfigException(
          where + ": cannot read it after line " + number + " (" + e.getMessage() + ")");
    }
  }

  private boolean read() throws IOException {
    length = 0;
    if (!fill()) {
      return false;
    }
    number++;
    if (first) {
      first = false;
      if (end - pos >= 3 || fillAtLeast(3)) {
        if (buffer[pos] == (byte) 0xEF
            && buffer[pos + 1] == (byte) 0xBB
            && buffer[pos + 2] == (byte) 0xBF) {
          pos += 3;
        }
      }
    }
    while (fill()) {
      int from = pos;
      while (pos < end && buffer[pos] != '\n') {
        pos++;
      }
      append(from, pos);
      if (pos < end) {
        pos++; // the line end
        break;
      }
    }
    if (length > 0 && line[length - 1] == '\r') {
      length--;
    }
    return true;
  }

  private void append(int from, int to) {
    int n = to - from;
    if (length + n > TraceBounds.MAX_LINE_BYTES) {
      throw new ConfigException(
          where
              + " line "
              + number
              + " is longer than "
              + TraceBounds.MAX_LINE_BYTES
              + " bytes (a trace line is a few KB): is it a trace in JSON lines or CSV?");
    }
    if (length + n > line.length) {
      line =
          Arrays.copyOf(
              line, Math.min(TraceBounds.MAX_LINE_BYTES, Math.max(length + n, line.length * 2)));
    }
    System.arraycopy(buffer, from, line, length, n);
    length += n;
  }

  /** True when a byte is buffered (reading more if needed); false at the end of the file. */
  private boolean fill() throws IOException {
    if (pos < end) {
      return true;
    }
    pos = 0;
    end = 0;
    int n;
    do {
      n = in.read(buffer, 0, buffer.length);
    } while (n == 0);
    if (n < 0) {
      return false;
    }
    end = n;
    return true;
  }

  /** Reads until {@code n} bytes are buffered or the file ends; true when they are. */
  private boolean fillAtLeast(int n) throws IOException {
    if (pos > 0) {
      System.arraycopy(buffer, pos, buffer, 0, end - pos);
      end -= pos;
      pos = 0;
    }
    while (end < n) {
      int read = in.read(buffer, end, buffer.length - end);
      if (read < 0) {
        return false;
      }
      end += read;
    }
    return true;
  }

  private boolean blank() {
    for (int i = 0; i < length; i++) {
      byte c = line[i];
      if (c != ' ' && c != '\t' && c != '\r') {
        return false;
      }
    }
    return true;
  }

  /** The current line's bytes (valid up to {@link #length()}, until the next call). */
  byte[] bytes() {
    return line;
  }

  int length() {
    return length;
  }

  /** The current line as text. */
  String text() {
    return new String(line, 0, length, StandardCharsets.UTF_8);
  }

  /** The current line's number, from 1 (blank lines count). */
  long number() {
    return number;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
