package io.tpotstream.producer.publish;

import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventPoller;
import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import io.tpotstream.common.event.TokenEvent;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * The hand-off from the event loops to the publisher thread: an LMAX Disruptor ring of reused
 * entries. An event loop claims an entry with a compare-and-set, copies an SSE event's bytes and
 * its socket-read time into the entry's own array and publishes it: no lock, no allocation, and no
 * wake-up (the wait strategy is never used to wait, so publishing signals nobody); the publisher
 * thread polls the ring in batches on its own schedule. A full ring is never waited on: the entry
 * is counted lost and the run is stopped loudly. An entry that carried an event larger than {@link
 * Slot#KEEP_BYTES} lets its array go once read, so the ring holds at most its capacity times that
 * (32 MiB at 32,768 entries), whatever the largest events it ever carried.
 */
public final class Handoff {
  private final RingBuffer<Slot> ring;
  private final EventPoller<Slot> poller;
  private final AtomicLong lost = new AtomicLong();
  private volatile LongConsumer onFull = n -> {};

  /** A ring of at least {@code capacity} entries (rounded up to a power of two). */
  public Handoff(int capacity) {
    int size = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
    if (capacity <= 1) {
      size = 1;
    }
    ring = RingBuffer.createMultiProducer(Slot::new, size, new BusySpinWaitStrategy());
    poller = ring.newPoller();
    ring.addGatingSequences(poller.getSequence());
  }

  /** Entries in the ring. */
  public int capacity() {
    return ring.getBufferSize();
  }

  /** Entries lost because the ring was full (the run stops at the first). */
  public long lost() {
    return lost.get();
  }

  /** Called with the count lost so far when an entry finds the ring full. */
  void onFull(LongConsumer handler) {
    this.onFull = handler;
  }

  /**
   * Takes up to {@code max} entries on the calling thread (the publisher's): a whole event goes to
   * {@code out} as it is, the rest through {@code recorder}. Returns how many it took.
   */
  int drain(int max, Recorder recorder, OutageBuffer out) {
    int[] count = {0};
    try {
      poller.poll(
          (slot, sequence, endOfBatch) -> {
            try {
              if (slot.type == Slot.OBJECT) {
                out.append(null, slot.object);
              } else {
                recorder.process(slot, out);
              }
            } finally {
              slot.clear();
            }
            return ++count[0] < max;
          });
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return count[0];
  }

  /** Bytes the entries' arrays hold now, read or not (for tests and benchmarks). */
  long retainedBytes() {
    long bytes = 0;
    for (int i = 0; i < ring.getBufferSize(); i++) {
      bytes += ring.get(i).bytes.length;
    }
    return bytes;
  }

  /** Entries published and not yet taken by the publisher thread. */
  long backlog() {
    return ring.getCursor() - poller.getSequence().get();
  }

  /** The request started at {@link MeasuredRequest#startNs()}. */
  public void start(MeasuredRequest request) {
    simple(Slot.START, request, request.startNs);
  }

  /**
   * One SSE event of {@code request}: its bytes, when the read that completed its last data line
   * returned, that read's number on the connection, and how long the loop ran late since the
   * request's event before ({@link LoopLagMeter#lagNs}).
   */
  public void event(
      MeasuredRequest request,
      byte[] bytes,
      int offset,
      int length,
      long arrivalNs,
      long read,
      long lagNs) {
    long seq = claim(request);
    if (seq < 0) {
      return;
    }
    Slot s = fill(seq, Slot.EVENT, request, arrivalNs);
    s.read = read;
    s.lagNs = lagNs;
    s.copy(bytes, offset, length);
    ring.publish(seq);
  }

  /** The response ended at {@code atNs} (after the framer dispatched any event the end cut off). */
  public void end(MeasuredRequest request, long atNs) {
    simple(Slot.END, request, atNs);
  }

  /**
   * The request failed at {@code atNs}, for the reason set with {@link MeasuredRequest#failure}.
   */
  public void failed(MeasuredRequest request, long atNs) {
    simple(Slot.FAILED, request, atNs);
  }

  /** The first-token deadline passed at {@code atNs}: the publisher thread judges it. */
  public void firstTokenDue(MeasuredRequest request, long atNs) {
    simple(Slot.FIRST_TOKEN_DUE, request, atNs);
  }

  /** The stream was quiet for the idle timeout at {@code atNs}: the publisher thread judges it. */
  public void idleDue(MeasuredRequest request, long atNs) {
    simple(Slot.IDLE_DUE, request, atNs);
  }

  /** Any other event, published as it is (in order with the rest). */
  public void object(TokenEvent event) {
    long seq = claim(null);
    if (seq < 0) {
      return;
    }
    Slot s = fill(seq, Slot.OBJECT, null, 0);
    s.object = event;
    s.length = 0;
    ring.publish(seq);
  }

  private void simple(int type, MeasuredRequest request, long ns) {
    long seq = claim(request);
    if (seq < 0) {
      return;
    }
    fill(seq, type, request, ns).length = 0;
    ring.publish(seq);
  }

  /** The next free slot's sequence, or -1 when the ring is full (said by {@link #full}). */
  private long claim(MeasuredRequest request) {
    try {
      return ring.tryNext();
    } catch (InsufficientCapacityException e) {
      full(request);
      return -1;
    }
  }

  private Slot fill(long seq, int type, MeasuredRequest request, long ns) {
    Slot s = ring.get(seq);
    s.type = type;
    s.request = request;
    s.ns = ns;
    return s;
  }

  private void full(MeasuredRequest request) {
    if (request != null) {
      // the rest of this request is dropped with it (a dropping publisher goes on)
      request.dropped = true;
    }
    onFull.accept(lost.incrementAndGet());
  }
}
