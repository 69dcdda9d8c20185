package io.tpotstream.producer.sse;

import java.util.function.Consumer;

/**
 * Whole events from bytes in one place: {@link SseFramer} then {@link SseFields}, the two halves
 * the producer runs on two threads, joined for callers that want decoded events (tests, the JIT
 * primer, benchmarks). Bytes are fed as they arrive, in any split; each event carries the arrival
 * time of the read that completed its last data line. Not thread-safe: one parser per response.
 */
public final class SseParser {
  private final SseFields fields = new SseFields();
  private final SseFramer framer;
  private long reads;

  public SseParser(Consumer<SseEvent> sink) {
    this.framer =
        new SseFramer(
            (bytes, offset, length, terminal, readNs, read) -> {
              if (fields.read(bytes, offset, length)) {
                sink.accept(new SseEvent(fields.event(), fields.dataText(), readNs));
              }
            });
  }

  /** Feeds {@code length} bytes that arrived at {@code arrivalNs} (System.nanoTime()). */
  public void feed(byte[] buffer, int offset, int length, long arrivalNs) {
    framer.feed(buffer, offset, length, arrivalNs, ++reads);
  }

  /** Feeds a whole array. */
  public void feed(byte[] buffer, long arrivalNs) {
    feed(buffer, 0, buffer.length, arrivalNs);
  }

  /**
   * The stream ended: an event cut off by it (no blank line after it) is dispatched if it has data
   * ({@link SseFramer#end()}).
   */
  public void end() {
    framer.end();
  }

  /** Comment lines seen (e.g. {@code : ping} keep-alives). */
  public long comments() {
    return framer.comments();
  }

  /** Bytes fed so far. */
  public long bytes() {
    return framer.bytes();
  }
}
