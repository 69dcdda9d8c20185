package io.tpotstream.producer.sse;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * A server-sent events parser following the WHATWG spec: lines end in LF, CRLF or CR (also when a
 * CRLF is split across reads); a leading UTF-8 BOM is dropped; {@code :} lines are comments; {@code
 * event:}, {@code data:} (several lines joined by LF), {@code id:} and {@code retry:} fields; an
 * empty line dispatches the event, and an event with no data is not dispatched. Bytes are fed as
 * they arrive, in any split; each event carries the arrival time of the read that completed it. Not
 * thread-safe: one parser per response.
 */
public final class SseParser {
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private final Consumer<SseEvent> sink;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
  private final StringBuilder data = new StringBuilder();
  private String eventType = "";
  private String lastEventId = "";
  private boolean hasData;
  private boolean afterCr;
  private int bomBytesSeen;
  private boolean bomChecked;
  private long comments;
  private long bytes;

  public SseParser(Consumer<SseEvent> sink) {
    this.sink = sink;
  }

  /** Feeds {@code length} bytes that arrived at {@code arrivalNs} (System.nanoTime()). */
  public void feed(byte[] buffer, int offset, int length, long arrivalNs) {
    bytes += length;
    int i = offset;
    int end = offset + length;
    if (!bomChecked) {
      while (i < end && bomBytesSeen < BOM.length) {
        if (buffer[i] != BOM[bomBytesSeen]) {
          // not a BOM: replay the prefix that matched as ordinary bytes
          bomChecked = true;
          byte[] prefix = new byte[bomBytesSeen];
          System.arraycopy(BOM, 0, prefix, 0, bomBytesSeen);
          bomBytesSeen = 0;
          scan(prefix, 0, prefix.length, arrivalNs);
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
    scan(buffer, i, end - i, arrivalNs);
  }

  /** Feeds a whole array. */
  public void feed(byte[] buffer, long arrivalNs) {
    feed(buffer, 0, buffer.length, arrivalNs);
  }

  /**
   * The data of an event cut off by the end of the stream (no empty line after it), or null. The
   * spec discards it; callers may still look at it (e.g. a final {@code [DONE]} without its blank
   * line).
   */
  public String pendingData() {
    String tail = line.size() > 0 ? line.toString(StandardCharsets.UTF_8) : null;
    if (tail != null && tail.startsWith("data:")) {
      String value = tail.substring(5);
      value = value.startsWith(" ") ? value.substring(1) : value;
      return hasData ? data + value : value;
    }
    if (hasData) {
      return data.substring(0, data.length() - 1);
    }
    return null;
  }

  /** Comment lines seen (e.g. {@code : ping} keep-alives). */
  public long comments() {
    return comments;
  }

  /** Bytes fed so far. */
  public long bytes() {
    return bytes;
  }

  private void scan(byte[] buffer, int offset, int length, long arrivalNs) {
    int end = offset + length;
    int lineStart = offset;
    for (int i = offset; i < end; i++) {
      byte b = buffer[i];
      if (b == '\n') {
        if (afterCr) {
          // the LF of a CRLF whose CR ended the line already
          afterCr = false;
          lineStart = i + 1;
          continue;
        }
        line.write(buffer, lineStart, i - lineStart);
        endLine(arrivalNs);
        lineStart = i + 1;
      } else if (b == '\r') {
        line.write(buffer, lineStart, i - lineStart);
        endLine(arrivalNs);
        afterCr = true;
        lineStart = i + 1;
      } else {
        afterCr = false;
      }
    }
    if (lineStart < end) {
      line.write(buffer, lineStart, end - lineStart);
    }
  }

  private void endLine(long arrivalNs) {
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    if (text.isEmpty()) {
      dispatch(arrivalNs);
      return;
    }
    if (text.charAt(0) == ':') {
      comments++;
      return;
    }
    int colon = text.indexOf(':');
    String field;
    String value;
    if (colon < 0) {
      field = text;
      value = "";
    } else {
      field = text.substring(0, colon);
      int start = colon + 1;
      if (start < text.length() && text.charAt(start) == ' ') {
        start++;
      }
      value = text.substring(start);
    }
    switch (field) {
      case "data" -> {
        data.append(value).append('\n');
        hasData = true;
      }
      case "event" -> eventType = value;
      case "id" -> {
        if (value.indexOf('\0') < 0) {
          lastEventId = value;
        }
      }
      default -> {
        // "retry" and unknown fields are ignored, as the spec says
      }
    }
  }

  private void dispatch(long arrivalNs) {
    if (!hasData) {
      eventType = "";
      return;
    }
    String payload = data.substring(0, data.length() - 1);
    String type = eventType.isEmpty() ? "message" : eventType;
    data.setLength(0);
    hasData = false;
    eventType = "";
    sink.accept(new SseEvent(type, payload, lastEventId, arrivalNs));
  }
}
