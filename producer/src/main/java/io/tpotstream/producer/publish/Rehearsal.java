package io.tpotstream.producer.publish;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.util.concurrent.locks.LockSupport;

/**
 * The publisher's side of the local warm-up: a thread of its own drains the {@link Handoff} through
 * a {@link Recorder} and encodes every event as the {@link Publisher} would, then drops it. Nothing
 * reaches Kafka; what the JIT compiles is the same code.
 */
public final class Rehearsal implements EventOut, AutoCloseable {
  private final Handoff handoff;
  private final Recorder recorder;
  private final Thread thread;
  private volatile boolean closed;
  private long encodedBytes;
  private volatile long events;

  /** Starts draining {@code handoff} through {@code recorder}. */
  public Rehearsal(Handoff handoff, Recorder recorder) {
    this.handoff = handoff;
    this.recorder = recorder;
    this.thread = new Thread(this::loop, "tpot-warmup-publisher");
    thread.setDaemon(true);
    thread.start();
  }

  /** Events encoded so far. */
  public long events() {
    return events;
  }

  @Override
  public void append(RequestRecord request, TokenEvent event) {
    encodedBytes += TokenEventCodec.encode(event).length;
    events++;
  }

  @Override
  public void appendToken(RequestRecord request, long ts, long elapsedNs, int seq, int bits) {
    encodedBytes +=
        request.template.encode(
                ts,
                elapsedNs,
                seq,
                HeldEvents.tokensOf(bits),
                HeldEvents.kindOf(bits),
                HeldEvents.coalescedOf(bits))
            .length;
    events++;
  }

  /** Drains what is left, then stops the thread. */
  @Override
  public void close() {
    closed = true;
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void loop() {
    while (!closed) {
      if (poll() == 0) {
        LockSupport.parkNanos(1_000_000);
      }
    }
    while (poll() > 0) {
      // the rest of what the loops handed over
    }
  }

  private int poll() {
    return handoff.drain(256, recorder, this);
  }
}
