package io.tpotstream.sink.report;

import java.math.BigDecimal;

/**
 * What the charts plot for one window of one series; a latency is null when the window had no
 * sample of it. {@code measured}: the window has a TPOT or TTFT sample or a request started or
 * finished; {@code warmupRequests}: the warm-up requests it counts.
 */
record WindowPoint(
    long windowEndMs,
    BigDecimal tpotP50Ms,
    BigDecimal tpotP99Ms,
    BigDecimal tpotP999Ms,
    BigDecimal ttftP50Ms,
    BigDecimal ttftP99Ms,
    BigDecimal errorRate,
    BigDecimal tokensPerSecond,
    boolean measured,
    long warmupRequests) {

  /**
   * A window of the warm-up: it counts warm-up requests and measured nothing. (The empty windows
   * before a series' first measured one are the warm-up's too: see {@link ReportModel#points}.)
   */
  boolean warmup() {
    return !measured && warmupRequests > 0;
  }
}
