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
 *
 * <p>It also keeps, on the loop, the last {@value #KEPT} intervals in which a tick was overdue by
 * more than {@link #STALL_NS} (from its due time to when it ran), so that {@link #lagNs} can say
 * how much of a gap between two reads the loop spent late: the most the client can have stretched
 * that gap (docs/producer.md, "The client's own lag").
 */
public final class LoopLagMeter implements Runnable {
  /**
   * The tick: 1 ms ({@code -Dtpot.producer.lagTickUs} changes it, for measuring what the meter
   * costs; 0 turns it off).
   */
  public static final long TICK_NS = Long.getLong("tpot.producer.lagTickUs", 1000) * 1000;

  /** A tick overdue by more than this is a stall worth attributing (1 ms). */
  public static final long STALL_NS = 1_000_000;

  static final int KEPT = 16;

  private static final ThreadLocal<LoopLagMeter> ON_LOOP = new ThreadLocal<>();

  private final long tickNs;
  private final long[] stallFromNs = new long[KEPT];
  private final long[] stallToNs = new long[KEPT];
  private int stalls;

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
            ON_LOOP.set(meter);
            meter.dueNs = System.nanoTime() + tickNs;
            loop.schedule(meter, tickNs, TimeUnit.NANOSECONDS);
          });
    }
    return meter;
  }

  /** The meter of the calling event loop, or null when none was started on it. */
  public static LoopLagMeter current() {
    return ON_LOOP.get();
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
    if (lateNs > STALL_NS) {
      int i = stalls++ & (KEPT - 1);
      stallFromNs[i] = dueNs;
      stallToNs[i] = now;
    }
    // the next tick is due 1 ms after this one ran: a long stall counts once, not once per ms
    dueNs = now + tickNs;
    loop.schedule(this, tickNs, TimeUnit.NANOSECONDS);
  }

  /**
   * How long, within {@code fromNs} to {@code toNs}, the loop ran more than {@link #STALL_NS} late:
   * the longest overlap of one stall with that interval, the stall still under way at {@code toNs}
   * included. A chunk read at {@code toNs} can have waited on the loop that long at most. 0 when
   * the meter is off or nothing overlapped. On the meter's loop only.
   */
  public long lagNs(long fromNs, long toNs) {
    if (tickNs <= 0 || toNs <= fromNs) {
      return 0;
    }
    long worst = 0;
    if (running && dueNs != 0 && toNs - dueNs > STALL_NS) {
      worst = toNs - Math.max(dueNs, fromNs);
    }
    for (int k = 0, n = Math.min(stalls, KEPT); k < n; k++) {
      int i = (stalls - 1 - k) & (KEPT - 1);
      if (stallToNs[i] <= fromNs) {
        break; // older stalls ended earlier still
      }
      long overlap = Math.min(stallToNs[i], toNs) - Math.max(stallFromNs[i], fromNs);
      worst = Math.max(worst, overlap);
    }
    return Math.max(0, worst);
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
