package io.tpotstream.producer.publish;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the publisher thread holds events until Kafka takes them: normally a few events, during a
 * broker outage the outage buffer, bounded by {@code --outage-buffer}. An event below a watermark
 * already sent is raised to it and counted ({@link #lateAtSource}), so no event ever lands behind a
 * heartbeat that promised otherwise. What happens to an event that finds it full is the {@link
 * OutagePolicy}'s call. Held in a {@link HeldEvents} FIFO; publisher thread only ({@link #held} and
 * {@link #lateAtSource} may be read anywhere).
 */
final class OutageBuffer {
  private final HeldEvents fifo;
  private final OutagePolicy policy;
  private final AtomicLong lateAtSource = new AtomicLong();
  private final AtomicLong heldNow = new AtomicLong();
  private long watermarkMs = Long.MIN_VALUE;

  OutageBuffer(long capacity, OutagePolicy policy) {
    this.fifo = new HeldEvents(capacity);
    this.policy = policy;
  }

  /** Holds an event (start, end, error, heartbeat, or one handed over whole) for sending. */
  void append(TokenEvent event) {
    append(null, event);
  }

  /** Holds an event of {@code request} (null for none) for sending. */
  void append(MeasuredRequest request, TokenEvent event) {
    if (request != null && policy.skips(request)) {
      return;
    }
    TokenEvent e = event;
    if (e.type() != EventType.HEARTBEAT && e.ts() < watermarkMs) {
      lateAtSource.incrementAndGet();
      e = e.withTs(watermarkMs);
    }
    if (!fifo.offer(e)) {
      policy.full(request, e);
    }
  }

  /**
   * Holds a token event of {@code request}, as numbers ({@code bits}: its tokens, kind and
   * coalesced flag, from {@link HeldEvents#chunkBits}; {@code lagUs}: the client's lag in its gap).
   */
  void appendToken(MeasuredRequest request, long ts, long elapsedNs, int seq, int bits, int lagUs) {
    if (policy.skips(request)) {
      return;
    }
    long at = ts;
    if (at < watermarkMs) {
      lateAtSource.incrementAndGet();
      at = watermarkMs;
    }
    if (!fifo.offerToken(request, at, elapsedNs, seq, bits, lagUs)) {
      policy.full(request, null);
    }
  }

  /**
   * The watermark a heartbeat about to be held may carry: {@code candidateMs}, never below one
   * already sent. Held events are raised to it from now on.
   */
  long advanceWatermark(long candidateMs) {
    watermarkMs = Math.max(watermarkMs, candidateMs);
    return watermarkMs;
  }

  /** Hands the oldest held event to {@code sender}; true when it took it (it is no longer held). */
  boolean sendHead(KafkaSender sender) {
    if (!sender.sendHead(fifo)) {
      return false;
    }
    fifo.remove();
    return true;
  }

  boolean isEmpty() {
    return fifo.isEmpty();
  }

  long size() {
    return fifo.size();
  }

  long capacity() {
    return fifo.capacity();
  }

  /** The most events held at once so far. */
  long maxSize() {
    return fifo.maxSize();
  }

  /** Makes the size visible to other threads ({@link #held}). */
  void publishSize() {
    heldNow.set(fifo.size());
  }

  /** Events held at the last {@link #publishSize}; any thread. */
  long held() {
    return heldNow.get();
  }

  /** Events whose ts was below a watermark already sent; any thread. */
  long lateAtSource() {
    return lateAtSource.get();
  }

  /** Empties the buffer; returns how many token events (not heartbeats) it held. */
  long dropAll() {
    long events = 0;
    while (!fifo.isEmpty()) {
      if (fifo.headIsToken() || fifo.headEvent().type() != EventType.HEARTBEAT) {
        events++;
      }
      fifo.remove();
    }
    heldNow.set(0);
    return events;
  }
}
