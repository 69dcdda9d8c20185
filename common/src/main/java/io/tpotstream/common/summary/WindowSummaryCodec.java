package io.tpotstream.common.summary;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** JSON encoding of window summaries, byte-for-byte deterministic. */
public final class WindowSummaryCodec {
  private static final ObjectWriter WRITER = Json.MAPPER.writerFor(WindowSummary.class);
  private static final ObjectReader READER = Json.MAPPER.readerFor(WindowSummary.class);

  private WindowSummaryCodec() {}

  public static byte[] encode(WindowSummary summary) {
    try {
      return WRITER.writeValueAsBytes(summary);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode window summary of " + summary.series(), e);
    }
  }

  public static String encodeToString(WindowSummary summary) {
    return new String(encode(summary), StandardCharsets.UTF_8);
  }

  /**
   * @throws IllegalArgumentException when the bytes are not a window summary
   */
  public static WindowSummary decode(byte[] bytes) {
    try {
      WindowSummary summary = READER.readValue(bytes);
      if (summary == null || summary.series() == null || summary.histograms() == null) {
        throw new IllegalArgumentException(
            "not a window summary: missing series or histograms in "
                + new String(bytes, 0, Math.min(bytes.length, 120), StandardCharsets.UTF_8));
      }
      return summary;
    } catch (IOException e) {
      throw new IllegalArgumentException("not a window summary: " + e.getMessage(), e);
    }
  }

  public static WindowSummary decode(String json) {
    return decode(json.getBytes(StandardCharsets.UTF_8));
  }
}
