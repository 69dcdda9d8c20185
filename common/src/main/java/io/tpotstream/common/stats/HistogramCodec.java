package io.tpotstream.common.stats;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/** HdrHistogram's compressed encoding, in base64, as summaries carry it. */
public final class HistogramCodec {
  private HistogramCodec() {}

  public static String encode(LatencyHistogram histogram) {
    return new Encoder().encode(histogram);
  }

  /**
   * Encodes one histogram after another into one buffer, kept between calls: HdrHistogram wants a
   * target as large as the uncompressed form (189 KB), which an encoder per summary would allocate
   * for each of its histograms. Not thread-safe.
   */
  public static final class Encoder {
    private ByteBuffer buffer = ByteBuffer.allocate(0);

    public String encode(LatencyHistogram histogram) {
      Histogram hdr = histogram.hdr();
      int needed = hdr.getNeededByteBufferCapacity();
      if (buffer.capacity() < needed) {
        buffer = ByteBuffer.allocate(needed);
      }
      buffer.clear();
      int length = hdr.encodeIntoCompressedByteBuffer(buffer);
      return Base64.getEncoder().encodeToString(Arrays.copyOfRange(buffer.array(), 0, length));
    }
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
