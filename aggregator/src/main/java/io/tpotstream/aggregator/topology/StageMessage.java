package io.tpotstream.aggregator.topology;

/**
 * What stage 1 tells stage 2 over the single-partition internal topic (and, for dead letters, what
 * it sends to the dead-letter topic).
 *
 * @param kind what this message is
 * @param partition the input partition it comes from
 * @param windowMs the window start (partial, pause) or the closed-through window end (marker)
 * @param value the pause in µs (pause); 0 otherwise
 * @param payload the partial's summary JSON, or the dead letter's original bytes (may be null)
 */
record StageMessage(Kind kind, int partition, long windowMs, long value, byte[] payload) {
  enum Kind {
    PARTIAL,
    PAUSE,
    MARKER,
    DEAD_LETTER
  }

  static StageMessage partial(int partition, long windowStartMs, byte[] summaryJson) {
    return new StageMessage(Kind.PARTIAL, partition, windowStartMs, 0, summaryJson);
  }

  static StageMessage pause(int partition, long windowStartMs, long pauseMaxUs) {
    return new StageMessage(Kind.PAUSE, partition, windowStartMs, pauseMaxUs, null);
  }

  static StageMessage marker(int partition, long windowEndMs) {
    return new StageMessage(Kind.MARKER, partition, windowEndMs, 0, null);
  }

  static StageMessage deadLetter(int partition, byte[] original) {
    return new StageMessage(Kind.DEAD_LETTER, partition, 0, 0, original);
  }

  boolean isDeadLetter() {
    return kind == Kind.DEAD_LETTER;
  }
}
