package io.tpotstream.sink.report;

import io.tpotstream.common.engine.EngineView;
import java.math.BigDecimal;

/**
 * What the charts plot for one window of one series; a latency is null when the window had no
 * sample of it. {@code measured}: the window has a TPOT or TTFT sample or a request started or
 * finished; {@code warmupRequests}: the warm-up requests it counts; {@code engine}: the engine's
 * view of the window, null when the producer scraped none.
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
    long warmupRequests,
    EngineView engine) {

  /**
   * A window of the warm-up: it counts warm-up requests and measured nothing. (The empty windows
   * before a series' first measured one are the warm-up's too: see {@link ReportModel#points}.)
   */
  boolean warmup() {
    return !measured && warmupRequests > 0;
  }

  /** The lower end of the engine's TPOT p99 bucket, ms; null without. */
  BigDecimal engineTpotP99LoMs() {
    EngineView.Interval p99 = engineTpotP99();
    return p99 == null ? null : p99.loMs();
  }

  /** The upper end of the engine's TPOT p99 bucket, ms; null without or for the +Inf bucket. */
  BigDecimal engineTpotP99HiMs() {
    EngineView.Interval p99 = engineTpotP99();
    return p99 == null ? null : p99.hiMs();
  }

  /** The lower bound of the time added outside the engine at TPOT p99, ms; null without. */
  BigDecimal outsideTpotP99LoMs() {
    EngineView.Interval p99 = outsideTpotP99();
    return p99 == null ? null : p99.loMs();
  }

  /** The upper bound of the time added outside the engine at TPOT p99, ms; null without. */
  BigDecimal outsideTpotP99HiMs() {
    EngineView.Interval p99 = outsideTpotP99();
    return p99 == null ? null : p99.hiMs();
  }

  private EngineView.Interval engineTpotP99() {
    return engine == null || engine.tpot() == null ? null : engine.tpot().p99Ms();
  }

  private EngineView.Interval outsideTpotP99() {
    return engine == null || engine.outside() == null || engine.outside().tpot() == null
        ? null
        : engine.outside().tpot().p99Ms();
  }
}
