package io.tpotstream.common.archive;

import com.fasterxml.jackson.core.JsonParser;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Comparator;

/**
 * One record of an archive as {@link ArchiveReader} read it: the Kafka record's key, original
 * partition and offset, record timestamp, and its value, plus what the replay order needs from the
 * value (its {@code ts}, whether it is a heartbeat and which one). Key and value stay the bytes of
 * the file until asked for; nothing else of the value is parsed.
 */
public final class ArchivedRecord {
  /**
   * The replay order (DESIGN.md, "Replay"): event {@code ts}, a final heartbeat after every other
   * event of its millisecond (it says "nothing more from this producer", and the producer sent it
   * last), then original partition, original offset, and line of the file.
   */
  public static final Comparator<ArchivedRecord> REPLAY_ORDER =
      ArchivedRecord::compareInReplayOrder;

  /** What identifies a heartbeat: the same heartbeat went to every partition of its topic. */
  public record Heartbeat(String producerId, long watermark, boolean isFinal) {}

  static final int HEARTBEAT = 1;
  static final int FINAL = 2;
  static final int KEY_ESCAPED = 4;
  static final int VALUE_TEXT = 8;

  private final byte[] buf;
  private final int keyStart;
  private final int keyLength;
  private final int valueStart;
  private final int valueLength;
  private final int partition;
  private final int flags;
  private final long offset;
  private final long timestamp;
  private final long ts;
  private final Heartbeat heartbeat;
  long line;

  /**
   * @param keyStart -1 for a null key
   * @param valueStart -1 for a null value
   */
  ArchivedRecord(
      byte[] buf,
      int keyStart,
      int keyLength,
      int valueStart,
      int valueLength,
      int partition,
      long offset,
      long timestamp,
      long ts,
      int flags,
      Heartbeat heartbeat,
      long line) {
    this.buf = buf;
    this.keyStart = keyStart;
    this.keyLength = keyLength;
    this.valueStart = valueStart;
    this.valueLength = valueLength;
    this.partition = partition;
    this.offset = offset;
    this.timestamp = timestamp;
    this.ts = ts;
    this.flags = flags;
    this.heartbeat = heartbeat;
    this.line = line;
  }

  /** The original partition (0 for a line that is a bare token event). */
  public int partition() {
    return partition;
  }

  /** The original offset (the line number for a line that is a bare token event). */
  public long offset() {
    return offset;
  }

  /** The record timestamp, epoch ms. */
  public long timestamp() {
    return timestamp;
  }

  /** The event's {@code ts}, epoch ms (the record timestamp when the value has none). */
  public long ts() {
    return ts;
  }

  /** The line of the file this record was read from, from 1. */
  public long line() {
    return line;
  }

  /** True for a token event of type {@code heartbeat}. */
  public boolean isHeartbeat() {
    return (flags & HEARTBEAT) != 0;
  }

  /** True for a heartbeat with {@code final: true}. */
  public boolean isFinalHeartbeat() {
    return (flags & FINAL) != 0;
  }

  /**
   * For a heartbeat that names its producer and watermark, what identifies it; else null (a
   * malformed heartbeat is replayed as any other record).
   */
  public Heartbeat heartbeat() {
    return heartbeat;
  }

  /** The key's bytes, or null. */
  public byte[] keyBytes() {
    if (keyStart < 0) {
      return null;
    }
    if ((flags & KEY_ESCAPED) != 0) {
      return key().getBytes(StandardCharsets.UTF_8);
    }
    return Arrays.copyOfRange(buf, keyStart, keyStart + keyLength);
  }

  /** The key as text, or null. */
  public String key() {
    if (keyStart < 0) {
      return null;
    }
    if ((flags & KEY_ESCAPED) != 0) {
      return unquote(buf, keyStart - 1, keyLength + 2);
    }
    return new String(buf, keyStart, keyLength, StandardCharsets.UTF_8);
  }

  /**
   * The value as the bytes the Kafka record carried (for a value that was not JSON, the text the
   * archive kept), or null.
   */
  public byte[] valueBytes() {
    if (valueStart < 0) {
      return null;
    }
    if ((flags & VALUE_TEXT) != 0) {
      return unquote(buf, valueStart, valueLength).getBytes(StandardCharsets.UTF_8);
    }
    return Arrays.copyOfRange(buf, valueStart, valueStart + valueLength);
  }

  /**
   * The value decoded as a token event.
   *
   * @throws io.tpotstream.common.event.TokenEventFormatException when it is not one
   */
  public TokenEvent event() {
    return TokenEventCodec.decode(valueBytes());
  }

  private int compareInReplayOrder(ArchivedRecord o) {
    if (ts != o.ts) {
      return ts < o.ts ? -1 : 1;
    }
    int finalA = flags & FINAL;
    int finalB = o.flags & FINAL;
    if (finalA != finalB) {
      return finalA < finalB ? -1 : 1;
    }
    if (partition != o.partition) {
      return partition < o.partition ? -1 : 1;
    }
    if (offset != o.offset) {
      return offset < o.offset ? -1 : 1;
    }
    return Long.compare(line, o.line);
  }

  /** The text of the JSON string at {@code buf[start, start+length)} (quotes included). */
  private static String unquote(byte[] buf, int start, int length) {
    try (JsonParser parser = Json.MAPPER.getFactory().createParser(buf, start, length)) {
      parser.nextToken();
      return parser.getText();
    } catch (IOException e) {
      throw new UncheckedIOException("archive: unreadable JSON string", e);
    }
  }

  @Override
  public String toString() {
    return "ArchivedRecord[partition="
        + partition
        + ", offset="
        + offset
        + ", ts="
        + ts
        + ", line="
        + line
        + ", key="
        + key()
        + "]";
  }
}
