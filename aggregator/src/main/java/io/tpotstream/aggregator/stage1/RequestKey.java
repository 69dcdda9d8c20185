package io.tpotstream.aggregator.stage1;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A request id's UTF-8 bytes as a map key (the record key's array itself: never modified). A key in
 * a map never changes; one {@link #probe} per stage is re-aimed at each event's id to look it up
 * without allocating.
 */
final class RequestKey {
  private byte[] bytes;
  private int hash;

  RequestKey(byte[] bytes) {
    aim(bytes);
  }

  /** A key to look ids up with, re-aimed by {@link #aim}; never put into a map. */
  static RequestKey probe() {
    return new RequestKey(new byte[0]);
  }

  /** This probe, now for {@code id}. */
  RequestKey aim(byte[] id) {
    this.bytes = id;
    this.hash = hash(id);
    return this;
  }

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /**
   * A hash of the id eight bytes at a time (ids are some thirty bytes; a byte at a time is a chain
   * of thirty multiplies on every event), mixed so that ids differing in their last digits spread.
   */
  static int hash(byte[] id) {
    long h = id.length;
    int i = 0;
    for (; i <= id.length - 8; i += 8) {
      h = (h + (long) LONGS.get(id, i)) * 0x9E3779B97F4A7C15L;
    }
    for (; i < id.length; i++) {
      h = (h + id[i]) * 0x9E3779B97F4A7C15L;
    }
    return (int) (h ^ (h >>> 29) ^ (h >>> 47));
  }

  byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequestKey other && hash == other.hash && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
