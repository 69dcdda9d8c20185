package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The binary form of {@link StageMessage} between the stages: [format][kind][partition
 * varint][windowMs zig-zag], then a partial's series and {@code WindowCounts}, a health record's
 * pause and lag, or a dead letter's original bytes. A partial is read as far as its series: stage 2
 * keeps its counts' bytes as they came and adds them up (at its commits, and when their window is
 * emitted).
 */
final class StageMessageSerde {
  private static final int FORMAT = 1;
  private static final StageMessage.Kind[] KINDS = StageMessage.Kind.values();

  private StageMessageSerde() {}

  static Serde<StageMessage> serde() {
    return Serdes.serdeFrom(new Writer(), new Reader());
  }

  static final class Writer implements Serializer<StageMessage> {
    /**
     * Each stream thread's buffer, kept between records (one serializer serves every thread): a
     * partial of a few thousand buckets would otherwise grow a new one, doubling, every window.
     */
    private final ThreadLocal<BinaryWriter> buffers =
        ThreadLocal.withInitial(() -> new BinaryWriter(512));

    @Override
    public byte[] serialize(String topic, StageMessage m) {
      if (m == null) {
        return null;
      }
      BinaryWriter out = buffers.get().reset();
      out.writeByte(FORMAT)
          .writeByte(m.kind().ordinal())
          .writeVarLong(m.partition())
          .writeSigned(m.windowMs());
      switch (m.kind()) {
        case PARTIAL -> {
          m.series().writeTo(out);
          if (m.counts() != null) {
            m.counts().writeTo(out);
          } else {
            out.writeBytes(m.encoded(), m.countsAt(), m.encoded().length - m.countsAt());
          }
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
        case PARTIAL -> {
          SeriesName series = SeriesName.readFrom(in);
          yield StageMessage.received(partition, windowMs, series, bytes, in.position());
        }
        case HEALTH -> StageMessage.health(partition, windowMs, in.readSigned(), in.readSigned());
        case MARKER -> StageMessage.marker(partition, windowMs);
        case DEAD_LETTER -> StageMessage.deadLetter(partition, in.readRemaining());
      };
    }
  }
}
