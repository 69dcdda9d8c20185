package io.tpotstream.simulator.pacing;

import io.vertx.core.Context;
import io.vertx.core.Handler;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hands due tasks to one event loop: tasks that fall due together run in one event-loop turn, so a
 * busy pacer costs one {@code runOnContext} per loop wake-up, not one per chunk.
 */
public final class LoopMailbox {
  private final Context context;
  private final Queue<PacedTask> due = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean drainScheduled = new AtomicBoolean();
  private final Handler<Void> drain = ignored -> drain();

  /** {@code context} must be an event-loop context: tasks run on its thread. */
  public LoopMailbox(Context context) {
    this.context = context;
  }

  void post(PacedTask task) {
    due.add(task);
    if (drainScheduled.compareAndSet(false, true)) {
      context.runOnContext(drain);
    }
  }

  private void drain() {
    drainScheduled.set(false);
    PacedTask task;
    while ((task = due.poll()) != null) {
      task.fire();
    }
  }
}
