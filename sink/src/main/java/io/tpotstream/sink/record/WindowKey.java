package io.tpotstream.sink.record;

/**
 * One (series, window) pair, the unit every sink output holds exactly once. The series is kept as
 * the CSV writes it ({@link LineText}): a key made from a summary and one read back from any file
 * are equal whenever they name the same row.
 */
public record WindowKey(String series, long windowEndMs) {
  public WindowKey {
    series = LineText.of(series);
  }
}
