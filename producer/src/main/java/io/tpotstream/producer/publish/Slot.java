package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;

/** One entry of the hand-off ring, reused: what an event loop hands to the publisher thread. */
final class Slot {
  static final int START = 1;
  static final int EVENT = 2;
  static final int END = 3;
  static final int FAILED = 4;
  static final int FIRST_TOKEN_DUE = 5;
  static final int IDLE_DUE = 6;
  static final int OBJECT = 7;

  /**
   * The largest array a slot keeps once its event was read (1 KB: a text chunk with its usage, or
   * OpenAI's obfuscation padding): a slot that carried a larger event (logprobs) lets its array go,
   * so that the ring holds at most its capacity times this however large the events it ever carried
   * (32 MiB at 32,768 entries: with the outage buffer's 36 MB and the Kafka client's 16 MB, within
   * produce's 128 MB heap).
   */
  static final int KEEP_BYTES = 1024;

  private static final byte[] NONE = new byte[0];

  int type;
  MeasuredRequest request;
  TokenEvent object;

  /** When it happened: an event's socket read, the end of the stream, the timer. */
  long ns;

  /** Which socket read of the connection completed the event. */
  long read;

  /** How long the event loop ran late since the request's event before (an event's only). */
  long lagNs;

  byte[] bytes = NONE;
  int length;

  void copy(byte[] from, int offset, int count) {
    if (bytes.length < count) {
      // a large event's array is let go once read: exactly its size, no rounding up
      bytes =
          new byte
              [count > KEEP_BYTES ? count : Math.max(256, Integer.highestOneBit(count - 1) << 1)];
    }
    System.arraycopy(from, offset, bytes, 0, count);
    length = count;
  }

  void clear() {
    request = null;
    object = null;
    length = 0;
    if (bytes.length > KEEP_BYTES) {
      bytes = NONE;
    }
  }
}
