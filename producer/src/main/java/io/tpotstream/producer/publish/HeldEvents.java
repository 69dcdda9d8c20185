package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;

/**
 * The publisher's FIFO of events not yet handed to the Kafka client: normally a few events long,
 * during a broker outage the outage buffer. A token event is held as numbers (32 bytes: its
 * request, ts, elapsed ns, seq, tokens, kind, coalesced, client lag) and encoded only when it is
 * sent; other events (start, end, error, heartbeat) are held as objects. Memory comes in segments
 * of {@value #SEGMENT} events, taken as the FIFO grows and given back as it drains. Bounded: {@link
 * #offer} refuses once {@code capacity} events are held. Publisher thread only.
 */
final class HeldEvents {
  static final int SEGMENT = 4096;
  private static final int OBJECT = -1;
  private static final TokenKind[] KINDS = TokenKind.values();

  private static final class Segment {
    final long[] ts = new long[SEGMENT];
    final long[] elapsedNs = new long[SEGMENT];
    final int[] seq = new int[SEGMENT];
    final int[] meta = new int[SEGMENT];
    final int[] lagUs = new int[SEGMENT];
    final Object[] ref = new Object[SEGMENT];
    Segment next;
  }

  private final long capacity;
  private Segment head = new Segment();
  private Segment tail = head;
  private Segment spare;
  private int headIndex;
  private int tailIndex;
  private long size;
  private long maxSize;

  HeldEvents(long capacity) {
    this.capacity = capacity;
  }

  long size() {
    return size;
  }

  long capacity() {
    return capacity;
  }

  /** The most events held at once so far. */
  long maxSize() {
    return maxSize;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /**
   * A token chunk's tokens (up to 2^24 - 1), kind and coalesced flag in one int, as the FIFO holds
   * them ({@link #headTokens}, {@link #headKind}, {@link #headCoalesced} read them back).
   */
  static int chunkBits(int tokens, TokenKind kind, boolean coalesced) {
    return Math.min(tokens, 0xFFFFFF) << 8 | kind.ordinal() << 1 | (coalesced ? 1 : 0);
  }

  /**
   * Holds a token event ({@code bits} from {@link #chunkBits}, {@code lagUs} the client's lag in
   * its gap); false when the buffer is full.
   */
  boolean offerToken(
      MeasuredRequest request, long ts, long elapsedNs, int seq, int bits, int lagUs) {
    if (!room()) {
      return false;
    }
    Segment s = tail;
    int i = tailIndex;
    s.ref[i] = request;
    s.ts[i] = ts;
    s.elapsedNs[i] = elapsedNs;
    s.seq[i] = seq;
    s.meta[i] = bits;
    s.lagUs[i] = lagUs;
    advanceTail();
    return true;
  }

  /** Holds any other event; false when the buffer is full. */
  boolean offer(TokenEvent event) {
    if (!room()) {
      return false;
    }
    tail.ref[tailIndex] = event;
    tail.meta[tailIndex] = OBJECT;
    advanceTail();
    return true;
  }

  /** True when the head is a token held as numbers (else {@link #headEvent()}). */
  boolean headIsToken() {
    return head.meta[headIndex] != OBJECT;
  }

  TokenEvent headEvent() {
    return (TokenEvent) head.ref[headIndex];
  }

  MeasuredRequest headRequest() {
    return (MeasuredRequest) head.ref[headIndex];
  }

  long headTs() {
    return head.ts[headIndex];
  }

  long headElapsedNs() {
    return head.elapsedNs[headIndex];
  }

  int headSeq() {
    return head.seq[headIndex];
  }

  int headTokens() {
    return tokensOf(head.meta[headIndex]);
  }

  TokenKind headKind() {
    return kindOf(head.meta[headIndex]);
  }

  boolean headCoalesced() {
    return coalescedOf(head.meta[headIndex]);
  }

  int headLagUs() {
    return head.lagUs[headIndex];
  }

  /** The tokens of a chunk's {@link #chunkBits}. */
  static int tokensOf(int bits) {
    return bits >>> 8;
  }

  /** The kind of a chunk's {@link #chunkBits}. */
  static TokenKind kindOf(int bits) {
    return KINDS[(bits >> 1) & 3];
  }

  /** Whether a chunk's {@link #chunkBits} say it came in the read of the chunk before. */
  static boolean coalescedOf(int bits) {
    return (bits & 1) != 0;
  }

  /** Drops the head (it was handed to Kafka). */
  void remove() {
    head.ref[headIndex] = null;
    size--;
    if (++headIndex == SEGMENT) {
      Segment done = head;
      head = head.next;
      headIndex = 0;
      done.next = null;
      spare = done;
    }
  }

  private boolean room() {
    return size < capacity;
  }

  private void advanceTail() {
    size++;
    maxSize = Math.max(maxSize, size);
    if (++tailIndex == SEGMENT) {
      Segment next = spare != null ? spare : new Segment();
      spare = null;
      tail.next = next;
      tail = next;
      tailIndex = 0;
    }
  }
}
