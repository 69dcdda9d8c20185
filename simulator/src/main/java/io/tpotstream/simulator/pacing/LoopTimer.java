package io.tpotstream.simulator.pacing;

import io.netty.channel.EventLoop;
import io.vertx.core.internal.ContextInternal;
import java.util.concurrent.TimeUnit;

/**
 * Runs work at a {@link System#nanoTime()} instant on one Vert.x event loop, the one that serves
 * the connection. On Linux's epoll transport Netty sleeps the loop in {@code epoll_wait} with its
 * {@code timerfd} armed to the nanosecond (a {@code timerfd} has no timer slack), so the loop
 * itself wakes when a chunk is due: no pacing thread, no spinning, no hand-off between threads, and
 * every task due in the same wake-up runs in that one turn of the loop. On NIO (other systems, or
 * {@code -Dtpot.simulator.nio=true}) the selector waits in whole milliseconds, so a task can run up
 * to about a millisecond late; the pacing error in the ground truth then says so.
 *
 * <p>Waking and writing take time (on a 2-core VM about 40 µs each): the timer is armed that much
 * before the due instant, by a lead it learns from the errors its caller reports ({@link #learn}),
 * so that the median error stays near zero instead of adding to every gap.
 */
public final class LoopTimer {
  /**
   * The most the timer is armed early, in ns: no chunk goes out more than this before its due
   * instant.
   */
  public static final long MAX_LEAD_NS = 200_000;

  /** The most one reported error moves the lead, in ns (a median tracker, not a mean). */
  private static final long LEARN_STEP_NS = 2_000;

  private final EventLoop loop;
  private long leadNs;

  /**
   * The timer of {@code loop}; one per loop, shared by whatever runs on it ({@link LoopTimers}).
   */
  LoopTimer(EventLoop loop) {
    this.loop = loop;
  }

  /**
   * {@code task} wrapped to run on the calling Vert.x context (which must be on this loop); wrap
   * once per task and pass the result to {@link #at}, so that arming the timer allocates nothing of
   * ours.
   */
  public Runnable onContext(Runnable task) {
    ContextInternal context = LoopTimers.currentContext();
    return () -> context.dispatch(task);
  }

  /**
   * Runs {@code task} (made by {@link #onContext}) on this loop so that its work is done at {@code
   * dueNs}: the learnt lead before it, or in the loop's next turn when that instant has passed.
   * Call on this loop.
   */
  public void at(long dueNs, Runnable task) {
    long delayNs = dueNs - leadNs - System.nanoTime();
    if (delayNs <= 0) {
      loop.execute(task);
    } else {
      loop.schedule(task, delayNs, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Reports how late ({@code errorNs} > 0) or early the work armed by {@link #at} was done; the
   * lead moves one small step towards the error, so it settles where half the errors are late. Call
   * on this loop.
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
