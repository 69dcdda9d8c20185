package io.tpotstream.aggregator.topology;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.RecordMetadata;

/**
 * A dead letter as it is written: the poison record's key, value and headers, each cut to a fixed
 * budget, plus headers saying where it came from, why, and what was cut. Bounded whatever the
 * topic's limit, so that a record near the input's size limit never makes the dead letter too large
 * for its topic (a RecordTooLargeException would fail the stream thread on every restart).
 *
 * @param key the original key's first {@link #MAX_KEY_BYTES} bytes (null when it had none)
 * @param value the original value's first {@link #MAX_VALUE_BYTES} bytes (null when it had none)
 * @param reason why it is a dead letter, at most {@link #MAX_REASON_CHARS} characters
 */
record DeadLetter(byte[] key, byte[] value, Headers headers, String reason) {
  /** Bytes of the original key kept. */
  static final int MAX_KEY_BYTES = 4 * 1024;

  /** Bytes of the original value kept. */
  static final int MAX_VALUE_BYTES = 64 * 1024;

  /** Bytes of the original headers kept (names and values), the first ones that fit, in order. */
  static final int MAX_HEADER_BYTES = 64 * 1024;

  /** Characters of the reason kept. */
  static final int MAX_REASON_CHARS = 1024;

  /** The dead letter of a record read at {@code source} that is not a token event. */
  static DeadLetter of(
      byte[] key, byte[] value, Headers original, RecordMetadata source, String reason) {
    Headers headers = new RecordHeaders();
    int kept = 0;
    int dropped = 0;
    for (Header h : original) {
      int size = utf8(h.key()).length + (h.value() == null ? 0 : h.value().length);
      if (kept + size <= MAX_HEADER_BYTES) {
        headers.add(h);
        kept += size;
      } else {
        dropped++;
      }
    }
    String bounded = bound(reason);
    headers.add(DeadLetterHeaders.SOURCE_TOPIC, utf8(source.topic()));
    headers.add(DeadLetterHeaders.SOURCE_PARTITION, utf8(Integer.toString(source.partition())));
    headers.add(DeadLetterHeaders.SOURCE_OFFSET, utf8(Long.toString(source.offset())));
    headers.add(DeadLetterHeaders.REASON, utf8(bounded));
    if (dropped > 0) {
      headers.add(DeadLetterHeaders.HEADERS_DROPPED, utf8(Integer.toString(dropped)));
    }
    byte[] keptKey =
        cut(
            key,
            MAX_KEY_BYTES,
            headers,
            DeadLetterHeaders.KEY_TRUNCATED,
            DeadLetterHeaders.KEY_SIZE);
    byte[] keptValue =
        cut(
            value,
            MAX_VALUE_BYTES,
            headers,
            DeadLetterHeaders.VALUE_TRUNCATED,
            DeadLetterHeaders.VALUE_SIZE);
    return new DeadLetter(keptKey, keptValue, headers, bounded);
  }

  private static byte[] cut(
      byte[] bytes, int max, Headers headers, String truncated, String originalSize) {
    if (bytes == null || bytes.length <= max) {
      return bytes;
    }
    headers.add(truncated, utf8("true"));
    headers.add(originalSize, utf8(Integer.toString(bytes.length)));
    return Arrays.copyOf(bytes, max);
  }

  /** The reason, cut to {@link #MAX_REASON_CHARS} characters (never inside a surrogate pair). */
  static String bound(String reason) {
    String text = String.valueOf(reason);
    if (text.length() <= MAX_REASON_CHARS) {
      return text;
    }
    String suffix = "… (" + text.length() + " characters)";
    int end = MAX_REASON_CHARS - suffix.length();
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + suffix;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
