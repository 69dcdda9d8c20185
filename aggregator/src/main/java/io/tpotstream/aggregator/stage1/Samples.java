package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.Metric;

/**
 * Where the per-request logic puts what it observed; {@code tsMs} (epoch ms) picks the window, as
 * docs/design.md's "Which window a sample belongs to" says.
 */
interface Samples {
  /**
   * {@code count} latency samples of {@code micros} µs each.
   *
   * @return true when they went into an open window, false when they were late
   */
  boolean latency(Metric metric, int series, long tsMs, long micros, long count);

  void count(Counter counter, int series, long tsMs, long count);

  void failed(int series, long tsMs, String errorClass);
}
