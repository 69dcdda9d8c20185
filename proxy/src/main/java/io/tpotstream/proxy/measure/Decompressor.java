package io.tpotstream.proxy.measure;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.ZlibCodecFactory;
import io.netty.handler.codec.compression.ZlibWrapper;
import java.io.ByteArrayOutputStream;

/**
 * Inflates a copy of a gzip- or deflate-encoded stream as it arrives, so that a compressed event
 * stream is timed from the same reads as a plain one (the client gets the compressed bytes,
 * unchanged). Netty's zlib decoder in an embedded channel: incremental, no thread of its own.
 */
final class Decompressor {
  private final EmbeddedChannel channel;

  private Decompressor(ZlibWrapper wrapper) {
    channel = new EmbeddedChannel(ZlibCodecFactory.newZlibDecoder(wrapper, 0));
  }

  /**
   * A decompressor for a {@code Content-Encoding} value (lower case), null when the body is not
   * encoded.
   *
   * @throws IllegalArgumentException for an encoding other than gzip and deflate
   */
  static Decompressor of(String encoding) {
    return switch (encoding) {
      case "", "identity" -> null;
      case "gzip", "x-gzip" -> new Decompressor(ZlibWrapper.GZIP);
      case "deflate" -> new Decompressor(ZlibWrapper.ZLIB_OR_NONE);
      default -> throw new IllegalArgumentException(encoding);
    };
  }

  /** The bytes {@code compressed} completes (possibly none). */
  byte[] inflate(byte[] compressed) {
    channel.writeInbound(Unpooled.wrappedBuffer(compressed));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteBuf piece;
    while ((piece = channel.readInbound()) != null) {
      out.writeBytes(ByteBufUtil.getBytes(piece));
      piece.release();
    }
    return out.toByteArray();
  }

  /** Releases the decoder. */
  void close() {
    channel.finishAndReleaseAll();
  }
}
