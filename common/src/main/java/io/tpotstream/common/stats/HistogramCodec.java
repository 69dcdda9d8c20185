package io.tpotstream.common.stats;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/** HdrHistogram's compressed encoding, in base64, as summaries carry it. */
public final class HistogramCodec {
  private HistogramCodec() {}

  public static String encode(LatencyHistogram histogram) {
    Histogram hdr = histogram.hdr();
    ByteBuffer buffer = ByteBuffer.allocate(hdr.getNeededByteBufferCapacity());
    int length = hdr.encodeIntoCompressedByteBuffer(buffer);
    byte[] bytes = new byte[length];
    buffer.flip();
    buffer.get(bytes);
    return Base64.getEncoder().encodeToString(bytes);
  }

  /**
   * Decodes what {@link #encode} wrote.
   *
   * @throws IllegalArgumentException when the text is not a base64 compressed HdrHistogram
   */
  public static LatencyHistogram decode(String base64) {
    try {
      byte[] bytes = Base64.getDecoder().decode(base64);
      Histogram hdr = Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
      return LatencyHistogram.of(hdr);
    } catch (DataFormatException | RuntimeException e) {
      throw new IllegalArgumentException(
          "not an encoded HdrHistogram (base64 of its compressed form): " + e.getMessage(), e);
    }
  }
}
