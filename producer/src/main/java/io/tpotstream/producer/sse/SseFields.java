package io.tpotstream.producer.sse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads the fields of one server-sent event from the bytes {@link SseFramer} found: its type
 * ({@code event:}, {@code message} when absent) and its data ({@code data:} lines joined by LF, one
 * leading space of each value dropped). Comments, {@code id}, {@code retry} and unknown fields are
 * ignored, as the spec says. A single data line is not copied: {@link #data()} is then the event's
 * own array. Reused for every event; not thread-safe.
 */
public final class SseFields {
  private static final String MESSAGE = "message";

  private final String[] names = new String[8];
  private final byte[][] nameBytes = new byte[8][];
  private int nextName;
  private byte[] joined = new byte[256];
  private byte[] data;
  private int dataOffset;
  private int dataLength;
  private int dataLines;
  private String event;

  /**
   * Reads the event in {@code length} bytes from {@code offset}; a last line without a line end
   * counts as a line. Returns true when it has a data field.
   */
  public boolean read(byte[] bytes, int offset, int length) {
    data = bytes;
    dataOffset = 0;
    dataLength = 0;
    dataLines = 0;
    event = MESSAGE;
    int end = offset + length;
    int lineStart = offset;
    for (int i = offset; i <= end; i++) {
      i = LineEnds.next(bytes, i, end);
      if (i > lineStart) {
        line(bytes, lineStart, i);
      }
      if (i < end && bytes[i] == '\r' && i + 1 < end && bytes[i + 1] == '\n') {
        i++;
      }
      lineStart = i + 1;
    }
    return dataLines > 0;
  }

  /** The event type: the last {@code event:} value, or {@code message}. */
  public String event() {
    return event;
  }

  /** The array holding the data (the event's own array, or a reused one). */
  public byte[] data() {
    return data;
  }

  public int dataOffset() {
    return dataOffset;
  }

  public int dataLength() {
    return dataLength;
  }

  /** The data as text (allocates: for messages and tests). */
  public String dataText() {
    return new String(data, dataOffset, dataLength, StandardCharsets.UTF_8);
  }

  private void line(byte[] b, int from, int to) {
    if (b[from] == ':') {
      return;
    }
    int colon = from;
    while (colon < to && b[colon] != ':') {
      colon++;
    }
    int valueFrom = colon < to ? colon + 1 : to;
    if (valueFrom < to && b[valueFrom] == ' ') {
      valueFrom++;
    }
    int nameLength = colon - from;
    if (is(b, from, nameLength, "data")) {
      addData(b, valueFrom, to - valueFrom);
    } else if (is(b, from, nameLength, "event")) {
      event = name(b, valueFrom, to - valueFrom);
    }
  }

  private void addData(byte[] b, int from, int length) {
    if (dataLines == 0) {
      data = b;
      dataOffset = from;
      dataLength = length;
    } else {
      if (dataLines == 1) {
        // the second data line: from now on the data lives in the reused array, joined by LF
        byte[] first = data;
        int firstOffset = dataOffset;
        ensure(dataLength);
        System.arraycopy(first, firstOffset, joined, 0, dataLength);
        data = joined;
        dataOffset = 0;
      }
      ensure(dataLength + 1 + length);
      joined[dataLength] = '\n';
      System.arraycopy(b, from, joined, dataLength + 1, length);
      dataLength += 1 + length;
      data = joined;
    }
    dataLines++;
  }

  private void ensure(int length) {
    if (joined.length < length) {
      joined = Arrays.copyOf(joined, Math.max(length, joined.length * 2));
    }
  }

  private static boolean is(byte[] b, int from, int length, String name) {
    if (length != name.length()) {
      return false;
    }
    for (int k = 0; k < length; k++) {
      if (b[from + k] != name.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  /** Event types repeat on every event of a stream: keep the last few as strings. */
  private String name(byte[] b, int from, int length) {
    if (length == 0) {
      return MESSAGE;
    }
    for (int k = 0; k < names.length; k++) {
      byte[] candidate = nameBytes[k];
      if (candidate != null
          && candidate.length == length
          && Arrays.equals(candidate, 0, length, b, from, from + length)) {
        return names[k];
      }
    }
    byte[] copy = Arrays.copyOfRange(b, from, from + length);
    String text = new String(copy, StandardCharsets.UTF_8);
    nameBytes[nextName] = copy;
    names[nextName] = text;
    nextName = (nextName + 1) % names.length;
    return text;
  }
}
