package io.tpotstream.common.request;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The {@code --requests-out} file: one {@link RequestRecord} per line (JSONL). */
public final class RequestsFile implements Closeable {
  private final Path path;
  private final BufferedWriter out;
  private long written;

  private RequestsFile(Path path, BufferedWriter out) {
    this.path = path;
    this.out = out;
  }

  /**
   * Creates (or truncates) {@code path}, creating its directory.
   *
   * @throws IllegalArgumentException when it cannot be written, naming the path
   */
  public static RequestsFile create(Path path) {
    try {
      Path parent = path.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      return new RequestsFile(path, Files.newBufferedWriter(path, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot write --requests-out " + path + " (" + e.getMessage() + "): check the path");
    }
  }

  /** Appends one record as a line. */
  public void write(RequestRecord record) throws IOException {
    out.write(RequestRecords.encode(record));
    out.write('\n');
    written++;
  }

  /** Records written so far. */
  public long written() {
    return written;
  }

  public Path path() {
    return path;
  }

  public void flush() throws IOException {
    out.flush();
  }

  @Override
  public void close() throws IOException {
    out.close();
  }
}
