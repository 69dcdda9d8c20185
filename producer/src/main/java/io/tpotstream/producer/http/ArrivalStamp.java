package io.tpotstream.producer.http;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.impl.HttpClientConnectionInternal;

/**
 * The earliest instant the JVM sees a chunk: the first handler of a connection's Netty pipeline
 * (before TLS and HTTP decoding) notes {@code System.nanoTime()} and numbers each socket read.
 * Every SSE event gets the time of the read that ended its last data line, and two chunks with the
 * same read number came out of one read (coalesced): their gap says nothing about the server. One
 * per connection, written and read on the connection's event loop only.
 */
public final class ArrivalStamp extends ChannelInboundHandlerAdapter {
  static final String NAME = "tpot-arrival";

  /** When the last read returned (System.nanoTime()). */
  long lastReadNs;

  /** Reads so far on this connection. */
  long reads;

  /** When the last read returned (System.nanoTime()). */
  public long lastReadNs() {
    return lastReadNs;
  }

  /** Reads so far on this connection. */
  public long reads() {
    return reads;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    lastReadNs = System.nanoTime();
    reads++;
    ctx.fireChannelRead(msg);
  }

  /**
   * The stamp of {@code connection}, installed at the head of its pipeline on first use; null when
   * the connection is not a Netty one on the calling event loop (then callers stamp reads
   * themselves, later and without read numbers).
   */
  public static ArrivalStamp of(HttpConnection connection) {
    if (!(connection instanceof HttpClientConnectionInternal internal)) {
      return null;
    }
    ChannelHandlerContext chctx = internal.channelHandlerContext();
    if (chctx == null) {
      return null;
    }
    Channel channel = chctx.channel();
    if (!channel.eventLoop().inEventLoop()) {
      return null;
    }
    ChannelPipeline pipeline = channel.pipeline();
    if (pipeline.get(NAME) instanceof ArrivalStamp stamp) {
      return stamp;
    }
    ArrivalStamp stamp = new ArrivalStamp();
    pipeline.addFirst(NAME, stamp);
    return stamp;
  }
}
