package io.tpotstream.proxy.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.impl.HttpServerConnection;
import java.util.concurrent.TimeUnit;

/**
 * The proxy's limits on one client connection, enforced where its bytes enter (the head of its
 * Netty pipeline): a request head must be complete within the header timeout, counted from the
 * accept or, on a kept-alive connection, from the first byte of the next request; a kept-alive
 * connection may wait for its next request for the idle timeout. Past either the connection is
 * closed and counted by kind, so a client that sends its head a byte at a time (slowloris) or parks
 * connections holds a socket for a bounded time. An exchange in progress is never cut here: the
 * upstream's silence is {@code --idle-timeout}'s business. Used on the connection's loop only.
 */
final class ClientDeadlines extends ChannelInboundHandlerAdapter {
  private static final String NAME = "tpot-client-deadlines";

  private final long headerTimeoutNs;
  private final long idleTimeoutNs;
  private final ProxyMetrics metrics;
  private ChannelHandlerContext ctx;
  private ScheduledFuture<?> timer;
  private int exchanges;
  private boolean idle;

  /**
   * @param headerTimeoutNs how long a request head may take; 0 for no limit
   * @param idleTimeoutNs how long a kept-alive connection may wait for a request; 0 for no limit
   */
  private ClientDeadlines(long headerTimeoutNs, long idleTimeoutNs, ProxyMetrics metrics) {
    this.headerTimeoutNs = headerTimeoutNs;
    this.idleTimeoutNs = idleTimeoutNs;
    this.metrics = metrics;
  }

  /** Watches {@code connection}, just accepted: its first request head is due now. */
  static void install(
      HttpConnection connection, long headerTimeoutNs, long idleTimeoutNs, ProxyMetrics metrics) {
    if (connection instanceof HttpServerConnection internal
        && internal.channelHandlerContext() != null
        && (headerTimeoutNs > 0 || idleTimeoutNs > 0)) {
      internal
          .channelHandlerContext()
          .pipeline()
          .addFirst(NAME, new ClientDeadlines(headerTimeoutNs, idleTimeoutNs, metrics));
    }
  }

  /** The deadlines of {@code connection}, or null when it has none. */
  static ClientDeadlines of(HttpConnection connection) {
    if (connection instanceof HttpServerConnection internal
        && internal.channelHandlerContext() != null
        && internal.channelHandlerContext().pipeline().get(NAME) instanceof ClientDeadlines d) {
      return d;
    }
    return null;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext context) {
    ctx = context;
    arm(headerTimeoutNs, false);
  }

  @Override
  public void channelRead(ChannelHandlerContext context, Object msg) {
    if (idle && exchanges == 0) {
      // the next request begins: its head is due within the header timeout
      idle = false;
      arm(headerTimeoutNs, false);
    }
    context.fireChannelRead(msg);
  }

  @Override
  public void channelInactive(ChannelHandlerContext context) {
    cancel();
    context.fireChannelInactive();
  }

  /** A request's head arrived: no limit of this class applies until its response ends. */
  void requestBegun() {
    exchanges++;
    cancel();
  }

  /** A response ended: with no other exchange open, the connection waits for the next request. */
  void responseEnded() {
    exchanges = Math.max(0, exchanges - 1);
    if (exchanges == 0 && ctx.channel().isActive()) {
      idle = true;
      arm(idleTimeoutNs, true);
    }
  }

  private void arm(long timeoutNs, boolean idleKind) {
    cancel();
    if (timeoutNs > 0) {
      timer =
          ctx.executor()
              .schedule(
                  () -> {
                    timer = null;
                    if (idleKind) {
                      metrics.clientIdleTimeout();
                    } else {
                      metrics.clientHeaderTimeout();
                    }
                    ctx.channel().close();
                  },
                  timeoutNs,
                  TimeUnit.NANOSECONDS);
    }
  }

  private void cancel() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }
}
