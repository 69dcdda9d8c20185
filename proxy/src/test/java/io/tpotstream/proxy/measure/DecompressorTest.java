package io.tpotstream.proxy.measure;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** Inflating a copy of a compressed stream: whole, in any reads, and bounded per read. */
class DecompressorTest {
  /** 16 KB on the wire, 16 MiB inflated: a ratio no token stream reaches. */
  private static final byte[] BOMB = bomb();

  private static byte[] bomb() {
    try {
      return gzip(new byte[16 << 20], 1 << 20);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aGzipStreamSplitIntoRandomReadsInflatesToItsBytes() throws IOException {
    byte[] plain = new byte[300_000];
    new Random(7).nextBytes(plain);
    Arrays.fill(plain, 100_000, 200_000, (byte) 'x');
    byte[] compressed = gzip(plain, 50_000);
    Random random = new Random(8);
    Decompressor decompressor = Decompressor.of("gzip");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int at = 0; at < compressed.length; ) {
      int length = Math.min(compressed.length - at, 1 + random.nextInt(20_000));
      boolean withinCap =
          decompressor.inflate(
              Arrays.copyOfRange(compressed, at, at + length),
              (bytes, offset, n) -> {
                out.write(bytes, offset, n);
                return true;
              });
      assertTrue(withinCap);
      at += length;
    }
    decompressor.close();
    assertArrayEquals(plain, out.toByteArray());
  }

  @Test
  void aReadThatInflatesPastTheCapStopsThereHavingHandedOnAtMostTheCap() throws IOException {
    byte[] read = BOMB;
    long[] handedOn = {0};
    Decompressor decompressor = Decompressor.of("gzip");
    boolean withinCap =
        decompressor.inflate(
            read,
            (bytes, offset, n) -> {
              handedOn[0] += n;
              return true;
            });
    decompressor.close();
    assertFalse(withinCap);
    assertTrue(handedOn[0] <= Decompressor.MAX_INFLATED_PER_READ, "handed on " + handedOn[0]);
    assertTrue(handedOn[0] > Decompressor.MAX_INFLATED_PER_READ / 2, "handed on " + handedOn[0]);
  }

  @Test
  void anOutputThatWantsNoMoreStopsTheInflating() throws IOException {
    int[] pieces = {0};
    Decompressor decompressor = Decompressor.of("gzip");
    boolean withinCap =
        decompressor.inflate(
            Arrays.copyOf(BOMB, 8192),
            (bytes, offset, n) -> {
              pieces[0]++;
              return false;
            });
    decompressor.close();
    assertTrue(withinCap, "stopped by its reader, not by the cap");
    assertEquals(1, pieces[0]);
  }

  private static byte[] gzip(byte[] plain, int writeSize) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out, true)) {
      for (int at = 0; at < plain.length; at += writeSize) {
        gzip.write(plain, at, Math.min(writeSize, plain.length - at));
        gzip.flush();
      }
    }
    return out.toByteArray();
  }
}
