package io.tpotstream.aggregator.stage1;

import java.util.Arrays;

/** A request id's UTF-8 bytes as a map key (the record key's array itself: never modified). */
final class RequestKey {
  final byte[] bytes;
  private final int hash;

  RequestKey(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
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
