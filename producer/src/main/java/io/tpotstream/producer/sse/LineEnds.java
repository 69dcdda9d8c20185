package io.tpotstream.producer.sse;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Finds the next LF or CR in bytes, eight bytes at a time (SWAR), for both halves of SSE parsing.
 */
final class LineEnds {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long ONES = 0x0101010101010101L;
  private static final long HIGHS = 0x8080808080808080L;
  private static final long LFS = 0x0A0A0A0A0A0A0A0AL;
  private static final long CRS = 0x0D0D0D0D0D0D0D0DL;

  private LineEnds() {}

  /** The index of the first {@code \n} or {@code \r} in {@code [from, to)}, or {@code to}. */
  static int next(byte[] b, int from, int to) {
    int i = from;
    while (i + 8 <= to) {
      long word = (long) LONGS.get(b, i);
      long lf = word ^ LFS;
      long cr = word ^ CRS;
      long found = ((lf - ONES) & ~lf | (cr - ONES) & ~cr) & HIGHS;
      if (found != 0) {
        // the lowest flagged byte is exact (little-endian): the first LF or CR in the word
        return i + (Long.numberOfTrailingZeros(found) >>> 3);
      }
      i += 8;
    }
    while (i < to && b[i] != '\n' && b[i] != '\r') {
      i++;
    }
    return i;
  }
}
