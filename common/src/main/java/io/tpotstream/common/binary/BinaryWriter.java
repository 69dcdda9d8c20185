package io.tpotstream.common.binary;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer for the project's internal binary records (state blobs, partials between
 * the aggregator's stages): unsigned LEB128 varints, zig-zag signed varints, fixed longs and
 * length-prefixed UTF-8 strings. Reusable with {@link #reset}.
 */
public final class BinaryWriter {
  private byte[] bytes;
  private int size;

  public BinaryWriter() {
    this(64);
  }

  public BinaryWriter(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  /** Forgets what was written, keeping the buffer. */
  public BinaryWriter reset() {
    size = 0;
    return this;
  }

  public int size() {
    return size;
  }

  /** A copy of what was written. */
  public byte[] toByteArray() {
    return Arrays.copyOf(bytes, size);
  }

  public BinaryWriter writeByte(int value) {
    ensure(1);
    bytes[size++] = (byte) value;
    return this;
  }

  /** An unsigned varint (values below 0 take ten bytes: use {@link #writeSigned} for those). */
  public BinaryWriter writeVarLong(long value) {
    ensure(10);
    long v = value;
    while ((v & ~0x7FL) != 0) {
      bytes[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    bytes[size++] = (byte) v;
    return this;
  }

  /** A zig-zag varint: small negative values stay short. */
  public BinaryWriter writeSigned(long value) {
    return writeVarLong((value << 1) ^ (value >> 63));
  }

  /** Eight bytes, big-endian, so that encoded keys sort as the numbers do (for values ≥ 0). */
  public BinaryWriter writeFixedLong(long value) {
    ensure(8);
    for (int shift = 56; shift >= 0; shift -= 8) {
      bytes[size++] = (byte) (value >>> shift);
    }
    return this;
  }

  /** Four bytes, big-endian. */
  public BinaryWriter writeFixedInt(int value) {
    ensure(4);
    for (int shift = 24; shift >= 0; shift -= 8) {
      bytes[size++] = (byte) (value >>> shift);
    }
    return this;
  }

  public BinaryWriter writeBytes(byte[] value) {
    return writeBytes(value, 0, value.length);
  }

  public BinaryWriter writeBytes(byte[] value, int offset, int length) {
    ensure(length);
    System.arraycopy(value, offset, bytes, size, length);
    size += length;
    return this;
  }

  /** A varint length, then the UTF-8 bytes. */
  public BinaryWriter writeString(String value) {
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    writeVarLong(utf8.length);
    return writeBytes(utf8);
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }
}
