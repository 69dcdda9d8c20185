package io.tpotstream.archive;

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
 * the file until asked for; nothing else of the value is parsed. A view of one row of the reader's
 * table: cheap to create, holding no data of its own.
 */
public final class ArchivedRecord {
  /**
   * The replay order (docs/design.md, "Replay"): event {@code ts}, a final heartbeat after every
   * other event of its millisecond (it says "nothing more from this producer", and the producer
   * sent it last), then original partition, original offset, and line of the file.
   */
  public static final Comparator<ArchivedRecord> REPLAY_ORDER =
      (a, b) -> {
        int c =
            replayOrder(
                a.ts(),
                a.isFinalHeartbeat(),
                a.partition(),
                a.offset(),
                b.ts(),
                b.isFinalHeartbeat(),
                b.partition(),
                b.offset());
        return c != 0 ? c : Long.compare(a.line(), b.line());
      };

  /**
   * The replay order of two records by what an export knows of them before their lines are written
   * ({@link #REPLAY_ORDER} without the line, which only a file has).
   */
  static int replayOrder(
      long tsA,
      boolean finalA,
      int partitionA,
      long offsetA,
      long tsB,
      boolean finalB,
      int partitionB,
      long offsetB) {
    int c = Long.compare(tsA, tsB);
    if (c != 0) {
      return c;
    }
    c = Boolean.compare(finalA, finalB);
    if (c != 0) {
      return c;
    }
    c = Integer.compare(partitionA, partitionB);
    return c != 0 ? c : Long.compare(offsetA, offsetB);
  }

  /** What identifies a heartbeat: the same heartbeat went to every partition of its topic. */
  public record Heartbeat(String producerId, long watermark, boolean isFinal) {}

  static final int HEARTBEAT = 1;
  static final int FINAL = 2;
  static final int KEY_ESCAPED = 4;
  static final int VALUE_TEXT = 8;

  private final ArchiveTable table;
  private final int row;

  ArchivedRecord(ArchiveTable table, int row) {
    this.table = table;
    this.row = row;
  }

  /** The original partition (0 for a line that is a bare token event). */
  public int partition() {
    return table.partition[row];
  }

  /** The original offset (the line number for a line that is a bare token event). */
  public long offset() {
    return table.offset[row];
  }

  /** The record timestamp, epoch ms. */
  public long timestamp() {
    return table.timestamp[row];
  }

  /** The event's {@code ts}, epoch ms (the record timestamp when the value has none). */
  public long ts() {
    return table.ts[row];
  }

  /** The line of the file this record was read from, from 1. */
  public long line() {
    return table.line[row];
  }

  /** True for a token event of type {@code heartbeat}. */
  public boolean isHeartbeat() {
    return (table.flags[row] & HEARTBEAT) != 0;
  }

  /** True for a heartbeat with {@code final: true}. */
  public boolean isFinalHeartbeat() {
    return (table.flags[row] & FINAL) != 0;
  }

  /**
   * For a heartbeat that names its producer and watermark, what identifies it; else null (a
   * malformed heartbeat is replayed as any other record).
   */
  public Heartbeat heartbeat() {
    return (table.flags[row] & HEARTBEAT) == 0 ? null : table.heartbeats.get(row);
  }

  /**
   * A hash of the key as the file holds it (0 for none), without copying it: the same key always
   * hashes the same, so it can deal a request's records to one worker.
   */
  public int keyHash() {
    int start = table.keyStart[row];
    if (start < 0) {
      return 0;
    }
    byte[] buf = buf();
    int h = 1;
    for (int i = start, end = start + table.keyLength[row]; i < end; i++) {
      h = 31 * h + buf[i];
    }
    return h;
  }

  /** The key's bytes, or null. */
  public byte[] keyBytes() {
    int start = table.keyStart[row];
    if (start < 0) {
      return null;
    }
    if ((table.flags[row] & KEY_ESCAPED) != 0) {
      return key().getBytes(StandardCharsets.UTF_8);
    }
    return Arrays.copyOfRange(buf(), start, start + table.keyLength[row]);
  }

  /** The key as text, or null. */
  public String key() {
    int start = table.keyStart[row];
    if (start < 0) {
      return null;
    }
    if ((table.flags[row] & KEY_ESCAPED) != 0) {
      return unquote(buf(), start - 1, table.keyLength[row] + 2);
    }
    return new String(buf(), start, table.keyLength[row], StandardCharsets.UTF_8);
  }

  /**
   * The value as the bytes the Kafka record carried (for a value that was not JSON, the text the
   * archive kept), or null.
   */
  public byte[] valueBytes() {
    int start = table.valueStart[row];
    if (start < 0) {
      return null;
    }
    if ((table.flags[row] & VALUE_TEXT) != 0) {
      return unquote(buf(), start, table.valueLength[row]).getBytes(StandardCharsets.UTF_8);
    }
    return Arrays.copyOfRange(buf(), start, start + table.valueLength[row]);
  }

  private byte[] buf() {
    return table.blocks.get(table.block[row]);
  }

  /**
   * The value decoded as a token event.
   *
   * @throws io.tpotstream.common.event.TokenEventFormatException when it is not one
   */
  public TokenEvent event() {
    return TokenEventCodec.decode(valueBytes());
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
        + partition()
        + ", offset="
        + offset()
        + ", ts="
        + ts()
        + ", line="
        + line()
        + ", key="
        + key()
        + "]";
  }
}
