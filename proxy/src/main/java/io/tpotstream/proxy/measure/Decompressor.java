package io.tpotstream.proxy.measure;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.ZlibCodecFactory;
import io.netty.handler.codec.compression.ZlibWrapper;

/**
 * Inflates a copy of a gzip- or deflate-encoded stream as it arrives, so that a compressed event
 * stream is timed from the same reads as a plain one (the client gets the compressed bytes,
 * unchanged). Netty's zlib decoder in an embedded channel: incremental, no thread of its own.
 *
 * <p>Bounded by construction: a read is inflated in slices of {@link #SLICE_BYTES} (deflate expands
 * a byte to at most 1,032), each slice's output handed on at once and never gathered, and inflating
 * stops once one read gave more than {@link #MAX_INFLATED_PER_READ}: a compression bomb costs the
 * event loop a few milliseconds and a few MB, then its measurement ends.
 */
final class Decompressor {
  /**
   * The most one upstream read may inflate to (8 MiB): a compression ratio of 128 on a 64 KB read,
   * far above what token streams reach (JSON chunks compress 5 to 20 times, images and audio not at
   * all); a read of 8 KB or more that inflates at deflate's highest ratio passes it.
   */
  static final int MAX_INFLATED_PER_READ = 8 << 20;

  private static final int SLICE_BYTES = 2048;

  /** Takes inflated bytes as they come; false when it wants no more. */
  interface Output {
    boolean write(byte[] bytes, int offset, int length);
  }

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

  /**
   * Inflates one read, handing {@code out} the bytes it completes (possibly none) piece by piece,
   * until {@code out} wants no more. Returns false when the read inflated to more than {@link
   * #MAX_INFLATED_PER_READ} (what remains of it is not inflated).
   *
   * @throws io.netty.handler.codec.compression.DecompressionException when the bytes are not gzip
   *     or deflate
   */
  boolean inflate(byte[] compressed, Output out) {
    long inflated = 0;
    for (int at = 0; at < compressed.length; at += SLICE_BYTES) {
      channel.writeInbound(
          Unpooled.wrappedBuffer(compressed, at, Math.min(SLICE_BYTES, compressed.length - at)));
      boolean more = true;
      ByteBuf piece;
      while ((piece = channel.readInbound()) != null) {
        try {
          int length = piece.readableBytes();
          inflated += length;
          if (more && inflated <= MAX_INFLATED_PER_READ) {
            more = write(piece, length, out);
          }
        } finally {
          piece.release();
        }
      }
      if (inflated > MAX_INFLATED_PER_READ) {
        return false;
      }
      if (!more) {
        return true;
      }
    }
    return true;
  }

  private static boolean write(ByteBuf piece, int length, Output out) {
    if (piece.hasArray()) {
      return out.write(piece.array(), piece.arrayOffset() + piece.readerIndex(), length);
    }
    return out.write(ByteBufUtil.getBytes(piece), 0, length);
  }

  /** Releases the decoder. */
  void close() {
    channel.finishAndReleaseAll();
  }
}
