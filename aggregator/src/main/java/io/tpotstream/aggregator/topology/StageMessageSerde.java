package io.tpotstream.aggregator.topology;

import java.nio.ByteBuffer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of {@link StageMessage}: [kind 1][partition 4][windowMs 8][value 8][payload length 4,
 * -1 for null][payload].
 */
final class StageMessageSerde {
  private static final int HEADER_BYTES = 1 + 4 + 8 + 8 + 4;
  private static final StageMessage.Kind[] KINDS = StageMessage.Kind.values();

  private StageMessageSerde() {}

  static Serde<StageMessage> serde() {
    return Serdes.serdeFrom(new Writer(), new Reader());
  }

  static final class Writer implements Serializer<StageMessage> {
    @Override
    public byte[] serialize(String topic, StageMessage m) {
      if (m == null) {
        return null;
      }
      byte[] payload = m.payload();
      int length = payload == null ? 0 : payload.length;
      ByteBuffer b = ByteBuffer.allocate(HEADER_BYTES + length);
      b.put((byte) m.kind().ordinal())
          .putInt(m.partition())
          .putLong(m.windowMs())
          .putLong(m.value());
      b.putInt(payload == null ? -1 : length);
      if (payload != null) {
        b.put(payload);
      }
      return b.array();
    }
  }

  static final class Reader implements Deserializer<StageMessage> {
    @Override
    public StageMessage deserialize(String topic, byte[] bytes) {
      if (bytes == null) {
        return null;
      }
      ByteBuffer b = ByteBuffer.wrap(bytes);
      StageMessage.Kind kind = KINDS[b.get()];
      int partition = b.getInt();
      long windowMs = b.getLong();
      long value = b.getLong();
      int length = b.getInt();
      byte[] payload = null;
      if (length >= 0) {
        payload = new byte[length];
        b.get(payload);
      }
      return new StageMessage(kind, partition, windowMs, value, payload);
    }
  }
}
