package io.tpotstream.aggregator.stage1;

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
    this.hash = Arrays.hashCode(id);
    return this;
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
