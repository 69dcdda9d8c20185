package io.tpotstream.simulator.pacing;

import io.netty.channel.EventLoop;
import io.vertx.core.internal.ContextInternal;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs work at a {@link System#nanoTime()} instant on one Vert.x event loop, the one that serves
 * the connection. The timer keeps its own queue of due tasks and arms one Netty timer for the
 * earliest: on Linux's epoll transport Netty then sleeps the loop in {@code epoll_wait} with a
 * nanosecond timeout (no timer slack for a real-time thread), so the loop itself wakes when a chunk
 * is due: no pacing thread, no spinning, no hand-off between threads. Each wake-up runs every task
 * due within the next 30 µs too: a busy loop sends the chunks that fall due together in one turn
 * instead of sleeping and waking for each (a wake-up costs about as much as a write). On NIO (other
 * systems, or {@code -Dtpot.simulator.nio=true}) the selector waits in whole milliseconds, so a
 * task can run up to about a millisecond late; the pacing error in the ground truth then says so.
 *
 * <p>Waking and writing take time (on a 2-core VM about 40 µs each): the timer is armed that much
 * before the due instant, by a lead it learns from the errors its caller reports ({@link #learn}),
 * so that the median error stays near zero instead of adding to every gap. Lead and batch together
 * never start a task more than {@link #MAX_EARLY_NS} before it is due.
 *
 * <p>Not thread-safe: every call but construction is made on the timer's event loop.
 */
public final class LoopTimer {
  /** The most a task runs before its due instant, in ns. */
  public static final long MAX_EARLY_NS = 200_000;

  /**
   * Tasks due within this of a wake-up run in it, in ns: 30 µs, or {@code -Dtpot.simulator.batchNs}
   * (0 to 200,000; 0 wakes for every task, for comparisons).
   */
  static final long BATCH_NS =
      Math.max(0, Math.min(MAX_EARLY_NS, Long.getLong("tpot.simulator.batchNs", 30_000)));

  /** The most the timer is armed early, in ns. */
  static final long MAX_LEAD_NS = MAX_EARLY_NS - BATCH_NS;

  /** The most one reported error moves the lead, in ns (a median tracker, not a mean). */
  private static final long LEARN_STEP_NS = 2_000;

  /** Work the timer runs: one object per stream, armed again after each run. */
  public abstract static class Task {
    private final ContextInternal context = LoopTimers.currentContext();
    private final Runnable body = this::runDue;
    private long targetNs;
    private long order;

    /** Made on the event loop that will run it, under the Vert.x context it will run in. */
    protected Task() {}

    /** Runs on the loop, in the Vert.x context the task was made in. */
    protected abstract void runDue();

    private void run() {
      context.dispatch(body);
    }
  }

  private static final Comparator<Task> BY_TARGET =
      Comparator.<Task>comparingLong(task -> task.targetNs).thenComparingLong(task -> task.order);

  private final EventLoop loop;
  private final PriorityQueue<Task> queue = new PriorityQueue<>(BY_TARGET);
  private final Runnable fire = this::fire;
  private ScheduledFuture<?> armed;
  private long armedAtNs = Long.MAX_VALUE;
  private long order;
  private long leadNs;

  /**
   * The timer of {@code loop}; one per loop, shared by whatever runs on it ({@link LoopTimers}).
   */
  LoopTimer(EventLoop loop) {
    this.loop = loop;
  }

  /**
   * Runs {@code task} on this loop so that its work is done at {@code dueNs}: the learnt lead
   * before it, or in the loop's next turn when that instant has passed. A task is armed at most
   * once at a time.
   */
  public void at(long dueNs, Task task) {
    task.targetNs = dueNs - leadNs;
    task.order = order++;
    queue.add(task);
    if (task.targetNs < armedAtNs) {
      arm(task.targetNs);
    }
  }

  private void arm(long targetNs) {
    if (armed != null) {
      armed.cancel(false);
    }
    armedAtNs = targetNs;
    armed = loop.schedule(fire, Math.max(0, targetNs - System.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private void fire() {
    armed = null;
    armedAtNs = Long.MAX_VALUE;
    long limitNs = System.nanoTime() + BATCH_NS;
    Task task;
    while ((task = queue.peek()) != null && task.targetNs <= limitNs) {
      queue.poll();
      task.run();
    }
    if (task != null && task.targetNs < armedAtNs) {
      arm(task.targetNs);
    }
  }

  /**
   * Reports how late ({@code errorNs} > 0) or early the work armed by {@link #at} was done; the
   * lead moves one small step towards the error, so it settles where half the errors are late.
   */
  public void learn(long errorNs) {
    long step = errorNs > 0 ? LEARN_STEP_NS : errorNs < 0 ? -LEARN_STEP_NS : 0;
    leadNs = Math.max(0, Math.min(MAX_LEAD_NS, leadNs + step));
  }

  /** The current lead, in ns. */
  public long leadNs() {
    return leadNs;
  }
}
