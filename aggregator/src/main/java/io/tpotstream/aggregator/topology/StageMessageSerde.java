package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The binary form of {@link StageMessage} between the stages: [format][kind][partition
 * varint][windowMs zig-zag], then a partial's series and {@link WindowCounts}, a health record's
 * pause and lag, or a dead letter's original bytes.
 */
final class StageMessageSerde {
  private static final int FORMAT = 1;
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
      BinaryWriter out = new BinaryWriter(m.kind() == StageMessage.Kind.PARTIAL ? 512 : 32);
      out.writeByte(FORMAT)
          .writeByte(m.kind().ordinal())
          .writeVarLong(m.partition())
          .writeSigned(m.windowMs());
      switch (m.kind()) {
        case PARTIAL -> {
          m.series().writeTo(out);
          m.counts().writeTo(out);
        }
        case HEALTH -> out.writeSigned(m.pauseMaxUs()).writeSigned(m.lagMaxUs());
        case MARKER -> {}
        case DEAD_LETTER -> out.writeBytes(m.payload());
      }
      return out.toByteArray();
    }
  }

  static final class Reader implements Deserializer<StageMessage> {
    @Override
    public StageMessage deserialize(String topic, byte[] bytes) {
      if (bytes == null) {
        return null;
      }
      BinaryReader in = new BinaryReader(bytes);
      int format = in.readByte();
      if (format != FORMAT) {
        throw new IllegalArgumentException(
            "internal message in format " + format + ", this aggregator reads " + FORMAT);
      }
      StageMessage.Kind kind = KINDS[in.readByte()];
      int partition = in.readVarInt();
      long windowMs = in.readSigned();
      return switch (kind) {
        case PARTIAL ->
            StageMessage.partial(
                partition, windowMs, SeriesName.readFrom(in), WindowCounts.readFrom(in));
        case HEALTH -> StageMessage.health(partition, windowMs, in.readSigned(), in.readSigned());
        case MARKER -> StageMessage.marker(partition, windowMs);
        case DEAD_LETTER -> StageMessage.deadLetter(partition, in.readRemaining());
      };
    }
  }
}
