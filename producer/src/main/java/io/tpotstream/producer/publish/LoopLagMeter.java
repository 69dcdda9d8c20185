package io.tpotstream.producer.publish;

import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How late one event loop runs: a task scheduled every 1 ms on the loop records by how much each
 * run missed its due time. Whatever keeps the loop from a due tick (a burst of reads, a slow
 * handler, a GC pause, the OS not scheduling the thread) delays the chunks it reads by the same, so
 * this is the client's own share of a stretched gap, measured where it happens. On Linux's epoll
 * transport the timer is precise to tens of µs; on NIO to about a millisecond.
 */
public final class LoopLagMeter implements Runnable {
  /**
   * The tick: 1 ms ({@code -Dtpot.producer.lagTickUs} changes it, for measuring what the meter
   * costs; 0 turns it off).
   */
  public static final long TICK_NS = Long.getLong("tpot.producer.lagTickUs", 1000) * 1000;

  private final long tickNs;

  private final EventLoop loop;
  private final AtomicLong maxSinceTakeNs = new AtomicLong();
  private final AtomicLong maxEverNs = new AtomicLong();
  private long dueNs;
  private volatile boolean running = true;

  private LoopLagMeter(EventLoop loop, long tickNs) {
    this.loop = loop;
    this.tickNs = tickNs;
  }

  /** Starts ticking on {@code loop} every {@code tickNs} (0: never). */
  public static LoopLagMeter start(EventLoop loop, long tickNs) {
    LoopLagMeter meter = new LoopLagMeter(loop, tickNs);
    if (tickNs > 0) {
      loop.execute(
          () -> {
            meter.dueNs = System.nanoTime() + tickNs;
            loop.schedule(meter, tickNs, TimeUnit.NANOSECONDS);
          });
    }
    return meter;
  }

  @Override
  public void run() {
    if (!running) {
      return;
    }
    long now = System.nanoTime();
    long lateNs = now - dueNs;
    if (lateNs > maxSinceTakeNs.get()) {
      maxSinceTakeNs.accumulateAndGet(lateNs, Math::max);
      maxEverNs.accumulateAndGet(lateNs, Math::max);
    }
    // the next tick is due 1 ms after this one ran: a long stall counts once, not once per ms
    dueNs = now + tickNs;
    loop.schedule(this, tickNs, TimeUnit.NANOSECONDS);
  }

  /** The worst lateness since the last call, in µs; resets the interval. */
  public long takeMaxMicros() {
    return Math.max(0, maxSinceTakeNs.getAndSet(0)) / 1000;
  }

  /** The worst lateness since start, in µs. */
  public long maxEverMicros() {
    return Math.max(0, maxEverNs.get()) / 1000;
  }

  public void stop() {
    running = false;
  }
}
