package io.tpotstream.common.archive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.tpotstream.common.Json;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/**
 * Writes {@link ArchivedRecord}s as JSONL, gzip-compressed when the file name ends in {@code .gz}.
 */
public final class ArchiveWriter implements Closeable {
  private static final ObjectWriter WRITER = Json.MAPPER.writerFor(ArchivedRecord.class);
  private final BufferedWriter out;
  private long written;

  public ArchiveWriter(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    OutputStream stream = Files.newOutputStream(file);
    if (file.getFileName().toString().endsWith(".gz")) {
      stream = new GZIPOutputStream(stream, 1 << 16);
    }
    out = new BufferedWriter(new OutputStreamWriter(stream, StandardCharsets.UTF_8), 1 << 16);
  }

  /** Writes one record; a value that is not JSON is kept as a JSON string so nothing is lost. */
  public void write(String key, int partition, long offset, long timestamp, byte[] value)
      throws IOException {
    JsonNode node;
    try {
      node = Json.MAPPER.readTree(value);
    } catch (IOException e) {
      node = null;
    }
    if (node == null || node.isMissingNode()) {
      node = Json.MAPPER.getNodeFactory().textNode(new String(value, StandardCharsets.UTF_8));
    }
    out.write(
        WRITER.writeValueAsString(new ArchivedRecord(key, partition, offset, timestamp, node)));
    out.write('\n');
    written++;
  }

  public long written() {
    return written;
  }

  @Override
  public void close() throws IOException {
    out.close();
  }
}
