package io.tpotstream.producer.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LineEndsTest {
  private static int next(String text, int from) {
    byte[] b = text.getBytes(StandardCharsets.ISO_8859_1);
    return LineEnds.next(b, from, b.length);
  }

  @Test
  void findsTheFirstLineEndAtEveryPositionOfAWord() {
    for (int at = 0; at < 40; at++) {
      String line = "x".repeat(at) + "\n" + "y\r".repeat(5);
      assertEquals(at, next(line, 0), "LF at " + at);
      assertEquals(at, next("z".repeat(at) + "\r\n", 0), "CR at " + at);
      assertEquals(at, next("a".repeat(at), 0), "none: the end");
    }
  }

  @Test
  void bytesThatLookLikeLineEndsAreNot() {
    // 0x0B, 0x0C, 0x8A, 0x8D and UTF-8 continuation bytes are no line ends
    byte[] b = {0x0B, 0x0C, (byte) 0x8A, (byte) 0x8D, (byte) 0xC3, (byte) 0xA9, 0x09, 0x0E, 0x0A};
    assertEquals(8, LineEnds.next(b, 0, b.length));
    assertEquals(8, next("abcdefgh\n", 3));
    assertEquals(3, next("abc\ndefgh", 0));
  }
}
