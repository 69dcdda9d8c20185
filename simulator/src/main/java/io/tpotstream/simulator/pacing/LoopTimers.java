package io.tpotstream.simulator.pacing;

import io.netty.channel.EventLoop;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link LoopTimer} per event loop of a simulator, kept across its deployments: the lead a loop
 * learns while the warm-up streams through it is still there when the real port opens.
 */
public final class LoopTimers {
  private final Map<EventLoop, LoopTimer> byLoop = new ConcurrentHashMap<>();

  /**
   * The timer of the calling event loop.
   *
   * @throws IllegalStateException when not called on a Vert.x event loop
   */
  public LoopTimer current() {
    return byLoop.computeIfAbsent(currentContext().nettyEventLoop(), LoopTimer::new);
  }

  static ContextInternal currentContext() {
    Context context = Vertx.currentContext();
    if (context == null || !context.isEventLoopContext() || !Context.isOnEventLoopThread()) {
      throw new IllegalStateException("must be called on a Vert.x event loop");
    }
    return (ContextInternal) context;
  }
}
