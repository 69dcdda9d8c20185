package io.tpotstream.producer.sse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The framer held to a plain reference framer written from the WHATWG rules (whole stream in hand,
 * lines split first, then blocks): generated streams (data, event, id and comment lines, bare
 * fields, multi-line data, LF, CR and CRLF line ends, a BOM, events around the cap, a last event
 * cut off) fed whole, a byte at a time and in random reads, must give the same events, each with
 * the number of the read that ended its last data line, and overflow at the same point.
 */
class SseFramerFuzzTest {
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
  private static final String[] ENDS = {"\n", "\r", "\r\n"};
  private static final int STREAMS = 1500;

  /** One event as a framer reports it. */
  record Event(String bytes, boolean terminal, long read) {}

  /** What a framer made of a stream: its events, and whether an event passed the cap. */
  record Framed(List<Event> events, boolean overflowed) {}

  @Test
  void generatedStreamsFrameAsTheReferenceDoesWhateverTheReads() {
    int overflowed = 0;
    int terminal = 0;
    for (int n = 0; n < STREAMS; n++) {
      long seed = 0x5EED_0000L + n;
      Random random = new Random(seed);
      int cap = 32 + random.nextInt(480);
      byte[] stream = generate(random, cap);
      for (int[] reads :
          List.of(
              new int[] {stream.length}, everyByte(stream.length), randomReads(random, stream))) {
        Framed expected = reference(stream, reads, cap);
        Framed actual = frame(stream, reads, cap);
        assertEquals(
            expected,
            actual,
            "seed "
                + seed
                + ", cap "
                + cap
                + ", reads "
                + Arrays.toString(reads)
                + ", stream "
                + printable(stream));
        overflowed += actual.overflowed() ? 1 : 0;
        terminal += actual.events().stream().anyMatch(Event::terminal) ? 1 : 0;
      }
    }
    // the generator reaches both sides of the cap, and terminal events
    assertTrue(overflowed > STREAMS / 10 && overflowed < STREAMS * 2, "overflowed " + overflowed);
    assertTrue(terminal > STREAMS / 10, "terminal " + terminal);
  }

  @Test
  void anEventOfExactlyTheCapIsFramedAndOneByteMoreEndsTheFraming() {
    int cap = SseFramer.MAX_EVENT_BYTES;
    String atCap = "data: " + "x".repeat(cap - "data: \n".length()) + "\n";
    byte[] stream = (atCap + "\n" + "data: " + "y".repeat(cap) + "\n\ndata: z\n\n").getBytes();
    for (int[] reads : List.of(new int[] {stream.length}, chunksOf(stream.length, 65_536))) {
      Framed framed = frame(stream, reads, cap);
      assertEquals(1, framed.events().size());
      assertEquals(atCap, framed.events().get(0).bytes());
      assertTrue(framed.overflowed(), "the second event is past the cap; the third is not framed");
      assertEquals(reference(stream, reads, cap), framed);
    }
  }

  @Test
  void aLineThatNeverEndsIsHeldToTheCap() {
    SseFramer framer = new SseFramer((b, o, l, t, ns, r) -> {}, 1 << 20);
    byte[] read = new byte[65_536];
    Arrays.fill(read, (byte) 'a');
    framer.feed("data: ".getBytes(), 0, 6, 1, 1);
    int reads = 0;
    while (!framer.overflowed()) {
      framer.feed(read, 0, read.length, 2, 2);
      reads++;
    }
    assertEquals(16, reads, "1 MiB of one line, then the framing ends");
    framer.feed(read, 0, read.length, 3, 3);
    framer.end();
    assertEquals(6 + 17L * read.length, framer.bytes(), "what follows is counted, not framed");
    assertEquals(0, framer.events());
    assertEquals(
        "an SSE event of more than 1,048,576 bytes (tpot's cap per event)",
        framer.overflowReason());
  }

  // ---- generated streams ----

  private static byte[] generate(Random random, int cap) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (random.nextInt(4) == 0) {
      out.writeBytes(BOM);
    }
    int events = random.nextInt(8);
    for (int e = 0; e < events; e++) {
      int lines = 1 + random.nextInt(4);
      for (int l = 0; l < lines; l++) {
        out.writeBytes(line(random, cap).getBytes(StandardCharsets.UTF_8));
        if (l < lines - 1 || e < events - 1 || random.nextInt(3) > 0) {
          out.writeBytes(ENDS[random.nextInt(3)].getBytes());
        }
      }
      if (e < events - 1 || random.nextBoolean()) {
        // the blank line; sometimes more than one
        for (int b = random.nextInt(6) == 0 ? 2 : 1; b > 0; b--) {
          out.writeBytes(ENDS[random.nextInt(3)].getBytes());
        }
      }
    }
    return out.toByteArray();
  }

  private static String line(Random random, int cap) {
    return switch (random.nextInt(12)) {
      case 0 -> "data: [DONE]";
      case 1 -> random.nextBoolean() ? "data:[DONE] " : "data:  [DONE]\t";
      case 2 -> "event: message_stop";
      case 3 -> "event: content_block_delta";
      case 4 -> ": ping";
      case 5 -> random.nextBoolean() ? "id: 7" : "retry: 100";
      case 6 -> random.nextBoolean() ? "data" : "event";
      case 7 -> "dataset: not a data field";
      // around the cap: the event may end a few bytes either side of it
      case 8 -> "data: " + text(random, cap - 12 + random.nextInt(24));
      case 9 -> ":" + text(random, random.nextInt(40));
      default -> "data: " + text(random, random.nextInt(60));
    };
  }

  private static String text(Random random, int length) {
    StringBuilder b = new StringBuilder();
    String alphabet = "abc {}\":,é€😀[]DONE";
    while (b.length() < length) {
      b.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return b.toString();
  }

  private static int[] everyByte(int length) {
    return chunksOf(length, 1);
  }

  private static int[] chunksOf(int length, int size) {
    int[] reads = new int[(length + size - 1) / size];
    for (int i = 0; i < reads.length; i++) {
      reads[i] = Math.min(size, length - i * size);
    }
    return reads;
  }

  /** Random read sizes, some empty, summing to the stream's length. */
  private static int[] randomReads(Random random, byte[] stream) {
    List<Integer> reads = new ArrayList<>();
    int left = stream.length;
    while (left > 0) {
      int size = random.nextInt(8) == 0 ? 0 : Math.min(left, 1 + random.nextInt(40));
      reads.add(size);
      left -= size;
    }
    return reads.stream().mapToInt(Integer::intValue).toArray();
  }

  // ---- the framer under test, each read in an array of its own, spoiled after the call ----

  private static Framed frame(byte[] stream, int[] reads, int cap) {
    List<Event> events = new ArrayList<>();
    SseFramer framer =
        new SseFramer(
            (bytes, offset, length, terminal, readNs, read) -> {
              events.add(new Event(latin1(bytes, offset, length), terminal, read));
              assertEquals(read * 1000, readNs);
            },
            cap);
    int at = 0;
    for (int r = 0; r < reads.length; r++) {
      byte[] read = Arrays.copyOfRange(stream, at, at + reads[r]);
      framer.feed(read, 0, read.length, (r + 1) * 1000L, r + 1);
      Arrays.fill(read, (byte) '?');
      at += reads[r];
    }
    framer.end();
    assertEquals(stream.length, framer.bytes());
    return new Framed(events, framer.overflowed());
  }

  // ---- the reference: the whole stream in hand, lines first ----

  private static Framed reference(byte[] in, int[] reads, int cap) {
    long[] readOf = new long[in.length];
    int at = 0;
    for (int r = 0; r < reads.length; r++) {
      Arrays.fill(readOf, at, at + reads[r], r + 1);
      at += reads[r];
    }
    long lastRead = reads.length;
    List<Event> events = new ArrayList<>();
    int i = startsWith(in, BOM) ? BOM.length : 0;
    int blockStart = -1;
    boolean hasData = false;
    boolean terminal = false;
    long dataRead = 0;
    while (i < in.length) {
      int j = i;
      while (j < in.length && in[j] != '\n' && in[j] != '\r') {
        j++;
      }
      if (j == in.length) {
        // the last line, without its line end: ended by the end of the stream
        if (blockStart < 0) {
          blockStart = i;
        }
        if (isField(in, i, j, "data")) {
          hasData = true;
          dataRead = lastRead;
        }
        terminal |= isTerminal(in, i, j);
        break;
      }
      int endLength = in[j] == '\r' && j + 1 < in.length && in[j + 1] == '\n' ? 2 : 1;
      if (j == i) {
        // a blank line ends the block in progress
        if (blockStart >= 0) {
          if (j - blockStart > cap) {
            return new Framed(events, true);
          }
          if (hasData) {
            events.add(new Event(latin1(in, blockStart, j - blockStart), terminal, dataRead));
          }
        }
        blockStart = -1;
        hasData = false;
        terminal = false;
      } else {
        if (blockStart < 0) {
          blockStart = i;
        }
        if (isField(in, i, j, "data")) {
          hasData = true;
          dataRead = readOf[j];
        }
        terminal |= isTerminal(in, i, j);
      }
      i = j + endLength;
    }
    if (blockStart >= 0) {
      if (in.length - blockStart > cap) {
        return new Framed(events, true);
      }
      if (hasData) {
        events.add(new Event(latin1(in, blockStart, in.length - blockStart), terminal, dataRead));
      }
    }
    return new Framed(events, false);
  }

  /** {@code data: [DONE]} or {@code event: message_stop}, told from the line's first 24 bytes. */
  private static boolean isTerminal(byte[] in, int from, int to) {
    if (to - from > 24) {
      return false;
    }
    return isField(in, from, to, "data") && value(in, from + 5, to).equals("[DONE]")
        || isField(in, from, to, "event") && value(in, from + 6, to).equals("message_stop");
  }

  private static boolean isField(byte[] in, int from, int to, String name) {
    int n = name.length();
    if (to - from < n || !latin1(in, from, n).equals(name)) {
      return false;
    }
    return to - from == n || in[from + n] == ':';
  }

  /** A field's value after its colon, trimmed of bytes up to a space ("" when none). */
  private static String value(byte[] in, int from, int to) {
    while (from < to && (in[from] & 0xff) <= ' ') {
      from++;
    }
    while (to > from && (in[to - 1] & 0xff) <= ' ') {
      to--;
    }
    return from >= to ? "" : latin1(in, from, to - from);
  }

  private static boolean startsWith(byte[] in, byte[] prefix) {
    return in.length >= prefix.length
        && Arrays.equals(in, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static String latin1(byte[] bytes, int offset, int length) {
    return new String(bytes, offset, length, StandardCharsets.ISO_8859_1);
  }

  private static String printable(byte[] stream) {
    return latin1(stream, 0, stream.length).replace("\r", "\\r").replace("\n", "\\n");
  }

  @Test
  void theReferenceAgreesWithTheHandWrittenCases() {
    byte[] stream = "\uFEFFdata: a\r\n\r\n: ping\n\nevent: x\rdata:[DONE]\r\rdata: b".getBytes();
    Framed framed = reference(stream, new int[] {stream.length}, 1000);
    assertFalse(framed.overflowed());
    assertEquals(
        List.of(
            new Event("data: a\r\n", false, 1),
            new Event("event: x\rdata:[DONE]\r", true, 1),
            new Event("data: b", false, 1)),
        framed.events());
  }
}
