package io.tpotstream.simulator.pacing;

import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Releases tasks at their due {@link System#nanoTime()} instant with sub-millisecond accuracy,
 * which Vert.x timers (whole milliseconds) cannot: one dedicated thread keeps a priority queue of
 * due times, parks until a spin window before the earliest, then spins until it is due and hands it
 * to its event loop. The spin window adapts to how late this machine's parks wake (timer slack, a
 * virtual machine's scheduling): it is the larger of the configured minimum and 1.5 times the
 * average park overshoot plus 20 µs, at most 300 µs by default. What remains (a park that
 * overshoots even that, the hand-off to the loop, the write) is the pacing error that the caller
 * measures and records.
 */
public final class Pacer implements AutoCloseable {
  /** The default minimum spin window: above Linux's default 50 µs timer slack. */
  public static final long DEFAULT_SPIN_NS = TimeUnit.MICROSECONDS.toNanos(100);

  /**
   * The default maximum spin window: beyond it, parks overshoot because the machine is short of
   * CPU, and spinning longer would only take more of it.
   */
  public static final long DEFAULT_MAX_SPIN_NS = TimeUnit.MICROSECONDS.toNanos(300);

  private static final long SPIN_MARGIN_NS = TimeUnit.MICROSECONDS.toNanos(20);
  private static final long YIELD_ABOVE_NS = TimeUnit.MICROSECONDS.toNanos(20);

  private static final long RUNNING = Long.MIN_VALUE;
  private static final long IDLE = Long.MAX_VALUE;

  private final long minSpinNs;
  private final long maxSpinNs;
  private volatile long spinNs;
  private long averageOvershootNs;
  private final Queue<PacedTask> inbox = new ConcurrentLinkedQueue<>();
  private final PriorityQueue<PacedTask> byDue = new PriorityQueue<>();
  private final Thread thread;
  private volatile boolean running = true;
  // RUNNING while the thread is awake, else the instant it will wake at (IDLE: when unparked)
  private volatile long wakeAtNs = RUNNING;
  private long order;

  /** A pacer whose spin window adapts between {@code minSpinNs} and 300 µs. */
  public Pacer(long minSpinNs, String threadName) {
    this(minSpinNs, Math.max(minSpinNs, DEFAULT_MAX_SPIN_NS), threadName);
  }

  /** A pacer whose spin window adapts between the two bounds (equal bounds: a fixed window). */
  public Pacer(long minSpinNs, long maxSpinNs, String threadName) {
    if (minSpinNs < 0 || maxSpinNs < minSpinNs) {
      throw new IllegalArgumentException(
          "need 0 <= minSpinNs <= maxSpinNs, got " + minSpinNs + " and " + maxSpinNs);
    }
    this.minSpinNs = minSpinNs;
    this.maxSpinNs = maxSpinNs;
    this.spinNs = minSpinNs;
    this.thread = new Thread(this::loop, threadName);
    thread.setDaemon(true);
    thread.start();
  }

  /** Runs {@code task} on its event loop at {@code dueNs} ({@link System#nanoTime()}), or asap. */
  public void schedule(PacedTask task, long dueNs) {
    task.setDue(dueNs, 0);
    inbox.add(task);
    if (dueNs < wakeAtNs) {
      LockSupport.unpark(thread);
    }
  }

  private void loop() {
    while (running) {
      drainInbox();
      PacedTask next = byDue.peek();
      long now = System.nanoTime();
      if (next == null) {
        park(IDLE, 0);
        continue;
      }
      long waitNs = next.dueNs() - now;
      if (waitNs <= 0) {
        byDue.poll();
        next.mailbox().post(next);
      } else if (waitNs > spinNs) {
        park(next.dueNs() - spinNs, waitNs - spinNs);
      } else if (waitNs > YIELD_ABOVE_NS) {
        // lets an event loop of this process run on this core meanwhile, when one is waiting for it
        Thread.yield();
      } else {
        Thread.onSpinWait();
      }
    }
  }

  private void drainInbox() {
    PacedTask task;
    while ((task = inbox.poll()) != null) {
      task.setDue(task.dueNs(), order++);
      byDue.add(task);
    }
  }

  private void park(long wakeAtNs, long parkNs) {
    this.wakeAtNs = wakeAtNs;
    if (inbox.isEmpty() && running) {
      if (wakeAtNs == IDLE) {
        LockSupport.park(this);
      } else {
        LockSupport.parkNanos(this, parkNs);
        adaptSpin(System.nanoTime() - wakeAtNs);
      }
    }
    this.wakeAtNs = RUNNING;
  }

  /** Only full-length parks count: an early wake-up (a new task, a spurious one) says nothing. */
  private void adaptSpin(long overshootNs) {
    if (overshootNs < 0) {
      return;
    }
    averageOvershootNs += (Math.min(overshootNs, maxSpinNs) - averageOvershootNs) / 16;
    spinNs = Math.min(maxSpinNs, Math.max(minSpinNs, averageOvershootNs * 3 / 2 + SPIN_MARGIN_NS));
  }

  /** The current spin window, in ns. */
  public long spinNs() {
    return spinNs;
  }

  /** Stops the thread; tasks not yet due never run. */
  @Override
  public void close() {
    running = false;
    LockSupport.unpark(thread);
    try {
      thread.join(TimeUnit.SECONDS.toMillis(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
