package io.tpotstream.sink.report;

import java.math.BigDecimal;

/**
 * What the charts plot for one window of one series; a latency is null when the window had no
 * sample of it.
 */
record WindowPoint(
    long windowEndMs,
    BigDecimal tpotP50Ms,
    BigDecimal tpotP99Ms,
    BigDecimal tpotP999Ms,
    BigDecimal ttftP50Ms,
    BigDecimal ttftP99Ms,
    BigDecimal errorRate,
    BigDecimal tokensPerSecond) {}
