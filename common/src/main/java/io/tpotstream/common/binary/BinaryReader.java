package io.tpotstream.common.binary;

import java.nio.charset.StandardCharsets;

/** Reads what {@link BinaryWriter} wrote; a truncated or malformed input throws. */
public final class BinaryReader {
  private final byte[] bytes;
  private int position;
  private final int end;

  public BinaryReader(byte[] bytes) {
    this(bytes, 0, bytes.length);
  }

  public BinaryReader(byte[] bytes, int offset, int length) {
    this.bytes = bytes;
    this.position = offset;
    this.end = offset + length;
  }

  public boolean hasRemaining() {
    return position < end;
  }

  public int position() {
    return position;
  }

  public int readByte() {
    check(1);
    return bytes[position++] & 0xFF;
  }

  public long readVarLong() {
    long value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      int b = readByte();
      value |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("malformed varint at byte " + position);
  }

  public int readVarInt() {
    long value = readVarLong();
    if (value < 0 || value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("varint " + value + " is not an int at byte " + position);
    }
    return (int) value;
  }

  public long readSigned() {
    long v = readVarLong();
    return (v >>> 1) ^ -(v & 1);
  }

  public long readFixedLong() {
    check(8);
    long value = 0;
    for (int i = 0; i < 8; i++) {
      value = (value << 8) | (bytes[position++] & 0xFF);
    }
    return value;
  }

  public int readFixedInt() {
    check(4);
    int value = 0;
    for (int i = 0; i < 4; i++) {
      value = (value << 8) | (bytes[position++] & 0xFF);
    }
    return value;
  }

  public String readString() {
    int length = readVarInt();
    check(length);
    String value = new String(bytes, position, length, StandardCharsets.UTF_8);
    position += length;
    return value;
  }

  /** The rest of the input, as a copy. */
  public byte[] readRemaining() {
    byte[] rest = java.util.Arrays.copyOfRange(bytes, position, end);
    position = end;
    return rest;
  }

  private void check(int length) {
    if (length < 0 || position + length > end) {
      throw new IllegalArgumentException(
          "truncated record: wanted " + length + " bytes at byte " + position + " of " + end);
    }
  }
}
