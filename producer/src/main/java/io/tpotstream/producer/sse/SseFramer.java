package io.tpotstream.producer.sse;

import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * The event loop's share of server-sent events: finds where each event ends in a response's bytes
 * as they arrive, without decoding anything. Lines end in LF, CR or CRLF (also when a CRLF is split
 * across reads), a leading UTF-8 BOM is dropped, and a blank line ends an event (the WHATWG rules).
 * An event with a {@code data} field goes to the sink as the raw bytes of its lines, for {@link
 * SseFields} to read later on another thread; an event without data (a {@code : ping} keep-alive, a
 * bare blank line) is dropped here. An event whose data is {@code [DONE]} or whose type is {@code
 * message_stop} is flagged terminal, so that the loop knows a stream should end.
 *
 * <p>Each event carries the stamp (time and number) of the read that completed its last {@code
 * data} line, not of the read that brought its blank line: a server that sends the blank line with
 * the next event would otherwise shift every gap by one write, where a plain client that reads
 * lines (the seed's aiohttp script) does not. For the same reason an event cut off by the end of
 * the stream, without its blank line, is dispatched by {@link #end()}. Not thread-safe: one framer
 * per response.
 *
 * <p>An event (its lines with their line ends, comments included) may hold at most {@link
 * #MAX_EVENT_BYTES}, so that a line that never ends holds no more memory than that: the first event
 * past the cap ends the framing of the response (whatever follows is counted and ignored); the
 * caller, seeing {@link #overflowed()} after a feed, ends that response's measurement with {@link
 * #overflowReason()}.
 */
public final class SseFramer {
  /** Receives each complete event with data. */
  public interface Sink {
    /**
     * One event: {@code length} bytes from {@code offset}, its lines with their line ends (the
     * blank line that ended it excluded; an event dispatched by {@link #end()} may lack its last
     * line end). {@code readNs} and {@code read} are the stamp fed with the read that completed the
     * event's last data line. The array is only valid during the call.
     */
    void event(byte[] bytes, int offset, int length, boolean terminal, long readNs, long read);
  }

  /**
   * The most bytes one SSE event may hold, lines and line ends included (4 MiB): twice the 2 MB
   * deltas image and audio models stream, far above any text chunk. The one bound on what a
   * server's event may make the producer and the proxy hold.
   */
  public static final int MAX_EVENT_BYTES = 4 << 20;

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
  private static final byte[] DONE = {'[', 'D', 'O', 'N', 'E', ']'};
  private static final byte[] MESSAGE_STOP = "message_stop".getBytes();
  private static final int HEAD = 24;

  private final Sink sink;
  private final int maxEventBytes;
  private boolean overflowed;
  private final byte[] lineHead = new byte[HEAD];
  private byte[] pending = new byte[256];
  private int pendingLength;
  private int lineLength;
  private int eventLines;
  private boolean hasData;
  private boolean terminal;
  private boolean afterCr;
  private int bomBytesSeen;
  private boolean bomChecked;
  private long bytes;
  private long events;
  private long comments;
  private byte[] scratch;
  // the stamp of the read being fed, and of the read that completed the event's last data line
  private long readNs;
  private long read;
  private long dataReadNs;
  private long dataRead;

  /** A framer of events of at most {@link #MAX_EVENT_BYTES}. */
  public SseFramer(Sink sink) {
    this(sink, MAX_EVENT_BYTES);
  }

  /** A framer of events of at most {@code maxEventBytes} (tests and benchmarks). */
  public SseFramer(Sink sink, int maxEventBytes) {
    this.sink = sink;
    this.maxEventBytes = maxEventBytes;
  }

  /** True once an event passed the cap: nothing more of the response is framed. */
  public boolean overflowed() {
    return overflowed;
  }

  /** What passed the cap, for the message that ends the response's measurement. */
  public String overflowReason() {
    return String.format(
        java.util.Locale.ROOT,
        "an SSE event of more than %,d bytes (tpot's cap per event)",
        maxEventBytes);
  }

  /**
   * Feeds one network read as Vert.x delivered it, with its stamp ({@code readNs}:
   * System.nanoTime() when it returned; {@code read}: its number): the buffer's own array when it
   * has one, else a copy into a scratch array reused for the response.
   */
  public void feed(Buffer buffer, long readNs, long read) {
    if (overflowed) {
      bytes += buffer.length();
      return;
    }
    ByteBuf bytes = ((BufferInternal) buffer).getByteBuf();
    int length = bytes.readableBytes();
    if (bytes.hasArray()) {
      feed(bytes.array(), bytes.arrayOffset() + bytes.readerIndex(), length, readNs, read);
      return;
    }
    if (scratch == null || scratch.length < length) {
      scratch = new byte[Math.max(1024, length)];
    }
    bytes.getBytes(bytes.readerIndex(), scratch, 0, length);
    feed(scratch, 0, length, readNs, read);
  }

  /**
   * Feeds {@code length} bytes from {@code offset}, as one network read delivered them, with that
   * read's stamp ({@code readNs}: System.nanoTime() when it returned; {@code read}: its number).
   */
  public void feed(byte[] buffer, int offset, int length, long readNs, long read) {
    this.readNs = readNs;
    this.read = read;
    bytes += length;
    if (overflowed) {
      return;
    }
    int i = offset;
    int end = offset + length;
    if (!bomChecked) {
      while (i < end && bomBytesSeen < BOM.length) {
        if (buffer[i] != BOM[bomBytesSeen]) {
          // not a BOM: the prefix that matched is ordinary bytes
          bomChecked = true;
          int seen = bomBytesSeen;
          bomBytesSeen = 0;
          scan(BOM, 0, seen);
          if (overflowed) {
            return;
          }
          break;
        }
        bomBytesSeen++;
        i++;
      }
      if (bomBytesSeen == BOM.length) {
        bomChecked = true;
      }
      if (!bomChecked) {
        return;
      }
    }
    scan(buffer, i, end);
  }

  /** Bytes fed so far. */
  public long bytes() {
    return bytes;
  }

  /** Events with data passed to the sink so far. */
  public long events() {
    return events;
  }

  /** Comment lines seen (e.g. {@code : ping} keep-alives). */
  public long comments() {
    return comments;
  }

  /**
   * The stream ended: an event it cut off (no blank line after it, perhaps no line end after its
   * last line) is dispatched if it has data, as a line-reading client takes it. Its stamp is that
   * of the read that completed its last data line, or, when that line had no line end, of the last
   * read. Nothing is left over; feed no more after this.
   */
  public void end() {
    if (overflowed) {
      return;
    }
    if (lineLength > 0) {
      endLine();
    }
    if (eventLines > 0 && hasData) {
      events++;
      sink.event(pending, 0, pendingLength, terminal, dataReadNs, dataRead);
    }
    pendingLength = 0;
    eventLines = 0;
    hasData = false;
    terminal = false;
  }

  private boolean inEvent() {
    return eventLines > 0 || lineLength > 0;
  }

  private void scan(byte[] buffer, int start, int end) {
    // where the event in progress starts in this read; -1: it started in an earlier read
    int eventStart = pendingLength > 0 ? -1 : start;
    for (int i = start; i < end; i++) {
      byte b = buffer[i];
      if (b != '\n' && b != '\r') {
        afterCr = false;
        if (lineLength < HEAD) {
          lineHead[lineLength] = b;
          lineLength++;
          continue;
        }
        // past the part of the line that says what it is: on to its end
        int lineEnd = LineEnds.next(buffer, i, end);
        lineLength += lineEnd - i;
        i = lineEnd - 1;
        continue;
      }
      if (b == '\n' && afterCr) {
        // the LF of a CRLF whose CR ended the line already
        afterCr = false;
        if (!inEvent() && eventStart >= 0) {
          eventStart = i + 1;
        }
        continue;
      }
      afterCr = b == '\r';
      if (lineLength > 0) {
        endLine();
        continue;
      }
      // a blank line: the event in progress is complete
      if (eventLines > 0
          && (eventStart < 0 ? pendingLength + i - start : i - eventStart) > maxEventBytes) {
        overflow();
        return;
      }
      if (eventLines > 0 && hasData) {
        events++;
        if (eventStart < 0) {
          append(buffer, start, i - start);
          sink.event(pending, 0, pendingLength, terminal, dataReadNs, dataRead);
        } else {
          sink.event(buffer, eventStart, i - eventStart, terminal, dataReadNs, dataRead);
        }
      }
      pendingLength = 0;
      eventLines = 0;
      hasData = false;
      terminal = false;
      eventStart = i + 1;
    }
    if (inEvent()) {
      int from = eventStart < 0 ? start : eventStart;
      if (pendingLength + end - from > maxEventBytes) {
        overflow();
        return;
      }
      append(buffer, from, end - from);
    }
  }

  private void overflow() {
    overflowed = true;
    pending = new byte[0];
    pendingLength = 0;
  }

  private void endLine() {
    int length = lineLength;
    lineLength = 0;
    eventLines++;
    byte[] h = lineHead;
    if (h[0] == ':') {
      comments++;
      return;
    }
    if (startsWithField(h, length, "data")) {
      hasData = true;
      dataReadNs = readNs;
      dataRead = read;
      if (valueEquals(h, length, 4, DONE)) {
        terminal = true;
      }
    } else if (startsWithField(h, length, "event")) {
      if (valueEquals(h, length, 5, MESSAGE_STOP)) {
        terminal = true;
      }
    }
  }

  private static boolean startsWithField(byte[] head, int length, String name) {
    int n = name.length();
    if (length < n) {
      return false;
    }
    for (int k = 0; k < n; k++) {
      if (head[k] != name.charAt(k)) {
        return false;
      }
    }
    return length == n || head[n] == ':';
  }

  /**
   * True when the field's value (after the colon and one optional space), trimmed, is {@code v}.
   */
  private static boolean valueEquals(byte[] head, int length, int nameLength, byte[] v) {
    if (length > HEAD || length <= nameLength) {
      return false;
    }
    int from = nameLength + 1;
    int to = length;
    while (from < to && (head[from] & 0xff) <= ' ') {
      from++;
    }
    while (to > from && (head[to - 1] & 0xff) <= ' ') {
      to--;
    }
    if (to - from != v.length) {
      return false;
    }
    for (int k = 0; k < v.length; k++) {
      if (head[from + k] != v[k]) {
        return false;
      }
    }
    return true;
  }

  private void append(byte[] buffer, int offset, int length) {
    if (length <= 0) {
      return;
    }
    if (pendingLength + length > pending.length) {
      // within the cap, checked by the caller: doubling stops at it
      int grown = (int) Math.min(maxEventBytes, Math.max(2L * pending.length, 256));
      pending = java.util.Arrays.copyOf(pending, Math.max(grown, pendingLength + length));
    }
    System.arraycopy(buffer, offset, pending, pendingLength, length);
    pendingLength += length;
  }
}
