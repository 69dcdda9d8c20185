package io.tpotstream.archive;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import java.util.zip.CheckedOutputStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Writes an archive: one JSONL line per Kafka record, {@code
 * {"key":…,"partition":…,"offset":…,"timestamp":…,"value":{the event}}}, compressed as the file's
 * name says ({@link ArchiveCompression}). The value is copied as it is when it is one JSON object
 * on one line (every token event is), re-encoded on one line when it is a JSON object over several,
 * and kept as a JSON string otherwise, so a record that is not a token event is not lost; {@code
 * null} stays {@code null}. Lines are assembled in the caller's thread and compressed and written
 * by a thread of the writer's own ({@link HandOffThread}), so that a consumer and the compression
 * use two cores.
 */
public final class ArchiveWriter implements Closeable {
  private static final int CHUNK = 1 << 20;
  private static final byte[] KEY = ascii("{\"key\":");
  private static final byte[] PARTITION = ascii(",\"partition\":");
  private static final byte[] OFFSET = ascii(",\"offset\":");
  private static final byte[] TIMESTAMP = ascii(",\"timestamp\":");
  private static final byte[] VALUE = ascii(",\"value\":");
  private static final byte[] NULL = ascii("null");
  private static final byte[] END = ascii("}\n");

  private record Chunk(byte[] bytes, int length) {}

  private final Path file;
  private final SyncedFile onDisk;
  private final HandOffThread<Chunk> full;
  private final BlockingQueue<byte[]> empty = new ArrayBlockingQueue<>(10);
  private byte[] chunk = new byte[CHUNK];
  private int length;
  private long written;
  private long bytes;
  private boolean closed;
  private final CRC32C crc = new CRC32C();

  /** A writer at the default level of the file's compression. */
  public ArchiveWriter(Path file) throws IOException {
    this(file, null);
  }

  /**
   * @param level the gzip (1-9) or zstd (1-19) level, or null for the default
   * @throws IllegalArgumentException when the level does not suit the file's compression
   */
  public ArchiveWriter(Path file, Integer level) throws IOException {
    this(file, ArchiveCompression.of(file), level);
  }

  /**
   * A writer of {@code file} compressed as {@code compression} says, whatever its name (an export
   * writes under a temporary name).
   */
  public ArchiveWriter(Path file, ArchiveCompression compression, Integer level)
      throws IOException {
    this.file = file;
    int chosen = compression.level(level);
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    onDisk = new SyncedFile(file);
    OutputStream out = compression.compress(new CheckedOutputStream(onDisk, crc), chosen, 0);
    full =
        new HandOffThread<>(
            "archive-writer",
            8,
            file,
            next -> {
              out.write(next.bytes(), 0, next.length());
              empty.offer(next.bytes());
            },
            out);
  }

  /**
   * Writes one record; {@code key} and {@code value} are the record's bytes (either may be null).
   */
  public void write(byte[] key, int partition, long offset, long timestamp, byte[] value)
      throws IOException {
    int need = 80 + (key == null ? 4 : 2 + key.length) + (value == null ? 4 : value.length);
    ensure(need);
    put(KEY);
    if (key == null) {
      put(NULL);
    } else {
      putJsonString(key);
    }
    put(PARTITION);
    putLong(partition);
    put(OFFSET);
    putLong(offset);
    put(TIMESTAMP);
    putLong(timestamp);
    put(VALUE);
    putValue(value);
    put(END);
    written++;
  }

  /** Writes one Kafka record as it was read: key, partition, offset, timestamp and value. */
  public void write(ConsumerRecord<byte[], byte[]> r) throws IOException {
    write(r.key(), r.partition(), r.offset(), r.timestamp(), r.value());
  }

  /** Same, with the key as text (null for none). */
  public void write(String key, int partition, long offset, long timestamp, byte[] value)
      throws IOException {
    write(
        key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        partition,
        offset,
        timestamp,
        value);
  }

  /** Records written so far. */
  public long written() {
    return written;
  }

  /** Uncompressed bytes written so far. */
  public long bytes() {
    return bytes + length;
  }

  /**
   * Bytes in the file so far, compressed: behind what was written by what the writer and the
   * compressor still hold (the chunk being filled and up to 8 queued, 1 MB of lines each), exact
   * once {@link #close()} returned.
   */
  public long fileBytes() {
    return onDisk.written.get();
  }

  /** The CRC-32C of the file's bytes: final once {@link #close()} returned. */
  public long crc32c() {
    return crc.getValue();
  }

  public Path file() {
    return file;
  }

  /**
   * Writes what is buffered, finishes the compressed stream, forces the file to the disk and closes
   * it: a rename after it cannot give a power loss a name without its bytes.
   */
  @Override
  public void close() throws IOException {
    try {
      if (!closed && length > 0) {
        handOff();
      }
    } finally {
      closed = true;
      full.close(); // a second close does nothing
    }
  }

  /** Makes room for a line of up to {@code need} bytes. */
  private void ensure(int need) throws IOException {
    if (chunk.length - length >= need) {
      return;
    }
    if (length > 0) {
      handOff();
    }
    if (chunk.length < need) {
      chunk = new byte[need];
    }
  }

  private void handOff() throws IOException {
    full.put(new Chunk(chunk, length));
    bytes += length;
    length = 0;
    byte[] reuse = empty.poll();
    chunk = reuse != null ? reuse : new byte[CHUNK];
  }

  private void put(byte[] b) {
    System.arraycopy(b, 0, chunk, length, b.length);
    length += b.length;
  }

  private void putLong(long v) {
    if (v < 0) {
      chunk[length++] = '-';
      if (v == Long.MIN_VALUE) {
        put(ascii("9223372036854775808"));
        return;
      }
      v = -v;
    }
    int digits = 1;
    for (long rest = v / 10; rest > 0; rest /= 10) {
      digits++;
    }
    for (int i = length + digits - 1; i >= length; i--) {
      chunk[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    length += digits;
  }

  /** A JSON string of {@code text}'s bytes: copied when plain ASCII, else escaped by Jackson. */
  private void putJsonString(byte[] text) throws IOException {
    for (byte b : text) {
      if (b < 0x20 || b == '"' || b == '\\') { // also every byte of a non-ASCII character
        byte[] q = quoted(new String(text, StandardCharsets.UTF_8));
        ensure(q.length + 80);
        put(q);
        return;
      }
    }
    chunk[length++] = '"';
    put(text);
    chunk[length++] = '"';
  }

  private static byte[] quoted(String text) {
    byte[] inner = JsonStringEncoder.getInstance().quoteAsUTF8(text);
    byte[] out = new byte[inner.length + 2];
    out[0] = '"';
    System.arraycopy(inner, 0, out, 1, inner.length);
    out[out.length - 1] = '"';
    return out;
  }

  private void putValue(byte[] value) throws IOException {
    if (value == null) {
      put(NULL);
    } else if (isOneObjectOnOneLine(value)) {
      put(value);
    } else {
      byte[] other = otherValue(value);
      ensure(other.length + 8);
      put(other);
    }
  }

  /**
   * True when {@code value} is one JSON object on one line, judged by one scan of its bytes (the
   * profile showed a full JSON parse per record costing more than the rest of the export): it
   * starts with '{' and ends with the '}' that closes it, its strings end, and no line break or
   * other control character is outside an escape. Every token event passes; a value that passes
   * without being valid JSON is still kept byte for byte (the reader finds a value by position).
   */
  static boolean isOneObjectOnOneLine(byte[] value) {
    int last = value.length - 1;
    if (last < 1 || value[0] != '{' || value[last] != '}') {
      return false;
    }
    int depth = 0;
    boolean inString = false;
    for (int i = 0; i <= last; i++) {
      byte b = value[i];
      if (b >= 0 && b < 0x20 && b != '\t' && (inString || b == '\n' || b == '\r')) {
        return false;
      }
      if (inString) {
        if (b == '\\') {
          i++;
        } else if (b == '"') {
          inString = false;
        }
      } else if (b == '"') {
        inString = true;
      } else if (b == '{' || b == '[') {
        depth++;
      } else if ((b == '}' || b == ']') && --depth <= 0 && i != last) {
        return false;
      }
    }
    return depth == 0 && !inString;
  }

  /**
   * A value that is not one object on one line: an object over several lines is re-encoded on one;
   * anything else (not JSON, an array, a number) becomes a JSON string of its text.
   */
  static byte[] otherValue(byte[] value) throws IOException {
    try {
      JsonNode tree = Json.MAPPER.readTree(value);
      if (tree != null && tree.isObject()) {
        return Json.MAPPER.writeValueAsBytes(tree);
      }
    } catch (IOException e) {
      // not JSON: kept as text below
    }
    return quoted(new String(value, StandardCharsets.UTF_8));
  }

  /** A file's output stream whose close forces its bytes to the disk first. */
  private static final class SyncedFile extends OutputStream {
    private final FileChannel channel;
    private final OutputStream out;
    private final AtomicLong written = new AtomicLong();

    SyncedFile(Path file) throws IOException {
      channel =
          FileChannel.open(
              file,
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING);
      out = Channels.newOutputStream(channel);
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
      written.incrementAndGet();
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
      written.addAndGet(len);
    }

    @Override
    public void close() throws IOException {
      try (channel) {
        if (channel.isOpen()) {
          channel.force(true);
        }
      }
    }
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
