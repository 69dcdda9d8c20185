package io.tpotstream.producer.publish;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the producer's own pauses (GC, scheduling): a thread sleeps 1 ms in a loop and records
 * by how much each sleep overshot, so a client pause is never mistaken for a server stall.
 */
public final class PauseMeter implements AutoCloseable {
  private static final long SLEEP_NS = 1_000_000L;

  private final AtomicLong maxSinceTakeNs = new AtomicLong();
  private final AtomicLong maxEverNs = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;

  private PauseMeter() {
    thread = new Thread(this::loop, "tpot-pause-meter");
    thread.setDaemon(true);
  }

  /** Starts the meter thread. */
  public static PauseMeter start() {
    PauseMeter meter = new PauseMeter();
    meter.thread.start();
    return meter;
  }

  private void loop() {
    while (running) {
      long before = System.nanoTime();
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        return;
      }
      long overshoot = System.nanoTime() - before - SLEEP_NS;
      maxSinceTakeNs.accumulateAndGet(overshoot, Math::max);
      maxEverNs.accumulateAndGet(overshoot, Math::max);
    }
  }

  /** The longest overshoot since the last call, in µs; resets the interval. */
  public long takeMaxMicros() {
    return Math.max(0, maxSinceTakeNs.getAndSet(0)) / 1000;
  }

  /** The longest overshoot since start, in µs. */
  public long maxEverMicros() {
    return Math.max(0, maxEverNs.get()) / 1000;
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
