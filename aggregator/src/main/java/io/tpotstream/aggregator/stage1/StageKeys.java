package io.tpotstream.aggregator.stage1;

import io.tpotstream.common.binary.BinaryWriter;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Bytes;

/** The keys of stage 1's working set in its store: a tag byte, then what it names. */
final class StageKeys {
  static final byte REQUEST = 'r';
  static final byte COUNTS = 'w';
  static final byte HEALTH = 'h';
  static final byte PRODUCER = 'p';
  static final byte SERIES = 'n';
  static final byte COUNTER = 'c';
  static final Bytes CLOSED_THROUGH = Bytes.wrap(new byte[] {'C'});
  static final Bytes CLOCK = Bytes.wrap(new byte[] {'K'});

  private StageKeys() {}

  static Bytes countsKey(long windowStartMs, int series) {
    return Bytes.wrap(
        new BinaryWriter(13)
            .writeByte(COUNTS)
            .writeFixedLong(windowStartMs)
            .writeFixedInt(series)
            .toByteArray());
  }

  static Bytes healthKey(long windowStartMs) {
    return Bytes.wrap(
        new BinaryWriter(9).writeByte(HEALTH).writeFixedLong(windowStartMs).toByteArray());
  }

  static Bytes seriesKey(int id) {
    return Bytes.wrap(new BinaryWriter(5).writeByte(SERIES).writeFixedInt(id).toByteArray());
  }

  static Bytes prefixed(byte tag, byte[] name) {
    byte[] key = new byte[name.length + 1];
    key[0] = tag;
    System.arraycopy(name, 0, key, 1, name.length);
    return Bytes.wrap(key);
  }

  static Bytes prefixed(byte tag, String name) {
    return prefixed(tag, name.getBytes(StandardCharsets.UTF_8));
  }
}
