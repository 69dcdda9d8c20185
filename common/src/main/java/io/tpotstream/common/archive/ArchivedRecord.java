package io.tpotstream.common.archive;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.util.Comparator;

/**
 * One exported Kafka record (a line of {@code tpot export}'s JSONL): its key, original partition
 * and offset, record timestamp (epoch ms) and the token event as a JSON object.
 */
@JsonPropertyOrder({"key", "partition", "offset", "timestamp", "value"})
public record ArchivedRecord(
    String key, int partition, long offset, long timestamp, JsonNode value) {

  /**
   * Replay order (DESIGN.md, "Replay"): event ts, then original partition, then original offset.
   */
  public static final Comparator<ArchivedRecord> REPLAY_ORDER =
      Comparator.comparingLong(ArchivedRecord::ts)
          // a final heartbeat says "nothing more from this producer": after every event of its ms
          .thenComparing(ArchivedRecord::isFinalHeartbeat)
          .thenComparingInt(ArchivedRecord::partition)
          .thenComparingLong(ArchivedRecord::offset);

  /** True for a heartbeat with {@code final: true}. */
  public boolean isFinalHeartbeat() {
    return value != null
        && "heartbeat".equals(value.path("type").asText())
        && value.path("final").asBoolean(false);
  }

  /** The event's {@code ts} (falls back to the record timestamp when the value has none). */
  public long ts() {
    JsonNode ts = value == null ? null : value.get("ts");
    return ts != null && ts.canConvertToLong() ? ts.asLong() : timestamp;
  }

  /**
   * The decoded event.
   *
   * @throws io.tpotstream.common.event.TokenEventFormatException when the value is not a token
   *     event
   */
  public TokenEvent event() {
    return TokenEventCodec.decode(valueBytes());
  }

  /** The value as the bytes a Kafka record carries. */
  public byte[] valueBytes() {
    try {
      return Json.MAPPER.writeValueAsBytes(value);
    } catch (Exception e) {
      throw new IllegalStateException("cannot encode archived value", e);
    }
  }
}
