package io.tpotstream.aggregator.topology;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;

/**
 * What stage 1 tells stage 2 over the single-partition internal topic (and, for dead letters, what
 * it sends to the dead-letter topic).
 *
 * @param kind what this message is
 * @param partition the input partition it comes from
 * @param windowMs the window start (partial, health) or the closed-through window end (marker)
 * @param series the partial's series (partial only)
 * @param counts the partial's counts, as stage 1 sends them (partial only)
 * @param encoded a received partial's record, its counts' binary form from {@code countsAt} to the
 *     end: stage 2 keeps them as they came (partial read from the topic only)
 * @param countsAt where the counts start in {@code encoded}
 * @param pauseMaxUs the producers' worst own pause in the window, negative for none (health)
 * @param lagMaxUs the producers' worst event-loop lag in the window, negative for none (health)
 * @param payload the dead letter's original bytes
 */
record StageMessage(
    Kind kind,
    int partition,
    long windowMs,
    SeriesName series,
    WindowCounts counts,
    byte[] encoded,
    int countsAt,
    long pauseMaxUs,
    long lagMaxUs,
    byte[] payload) {
  enum Kind {
    PARTIAL,
    HEALTH,
    MARKER,
    DEAD_LETTER
  }

  static StageMessage partial(
      int partition, long windowStartMs, SeriesName series, WindowCounts counts) {
    return new StageMessage(
        Kind.PARTIAL, partition, windowStartMs, series, counts, null, 0, -1, -1, null);
  }

  /** A partial read from the internal topic, its counts left in {@code record} from {@code at}. */
  static StageMessage received(
      int partition, long windowStartMs, SeriesName series, byte[] record, int at) {
    return new StageMessage(
        Kind.PARTIAL, partition, windowStartMs, series, null, record, at, -1, -1, null);
  }

  static StageMessage health(int partition, long windowStartMs, long pauseMaxUs, long lagMaxUs) {
    return new StageMessage(
        Kind.HEALTH, partition, windowStartMs, null, null, null, 0, pauseMaxUs, lagMaxUs, null);
  }

  static StageMessage marker(int partition, long windowEndMs) {
    return new StageMessage(Kind.MARKER, partition, windowEndMs, null, null, null, 0, -1, -1, null);
  }

  static StageMessage deadLetter(int partition, byte[] original) {
    return new StageMessage(Kind.DEAD_LETTER, partition, 0, null, null, null, 0, -1, -1, original);
  }

  boolean isDeadLetter() {
    return kind == Kind.DEAD_LETTER;
  }
}
