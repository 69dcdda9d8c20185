package io.tpotstream.app.run;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.Records;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The live view puts the client's own delay beside the percentiles, and says when it is suspect.
 */
class LiveViewTest {
  private static WindowSummary window(long lagUs, long pauseUs, long coalesced) {
    return window(lagUs, pauseUs, coalesced, 0);
  }

  /**
   * Gaps of 1, 1.5 and 2 ms, and {@code touched} gaps of 9 ms in which the client's loop ran 7 ms
   * late.
   */
  private static WindowSummary window(long lagUs, long pauseUs, long coalesced, int touched) {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(9_000, touched);
    stats.clientTouched(9_000, 7_000, touched);
    stats.started(1);
    stats.completed(1, false);
    for (long gapUs : new long[] {1_000, 1_500, 2_000}) {
      stats.tpot.recordMicros(gapUs);
    }
    stats.ttft.recordMicros(1_900);
    stats.clientLag(lagUs);
    stats.clientPause(pauseUs);
    stats.coalescedGaps(coalesced);
    return stats.toSummary("m", "m", Map.of(), 1_767_225_600_000L, 1_767_225_610_000L);
  }

  @Test
  void aQuietClientIsShownAndNotFlagged() {
    assertEquals(
        "00:00:00–00:00:10  m          TPOT p50 1.50 p99 2.00 p99.9 2.00 ms (3 gaps), TTFT p50"
            + " 1.90 ms, errors 0, client lag max 0.40 ms, pause max 0.20 ms",
        LiveView.line(window(400, 200, 0)));
  }

  @Test
  void aLateTickThatTouchedNoGapFlagsNothing() {
    assertEquals(
        "00:00:00–00:00:10  m          TPOT p50 1.50 p99 2.00 p99.9 2.00 ms (3 gaps), TTFT p50"
            + " 1.90 ms, errors 0, client lag max 12.50 ms, pause max 0.20 ms, 2 coalesced gaps",
        LiveView.line(window(12_500, 200, 2)));
  }

  @Test
  void touchedGapsInTheTailFlagTheWindowWithThePercentilesWithoutThem() {
    assertEquals(
        "00:00:00–00:00:10  m          TPOT p50 1.50 p99 9.01 p99.9 9.01 ms (4 gaps), TTFT p50"
            + " 1.90 ms, errors 0, client lag max 12.50 ms, pause max 0.20 ms, client lag touched"
            + " 1 gap (100% of the tail ≥ p99)  CLIENT SUSPECT (without the client's lag p99 2.00"
            + " p99.9 2.00 ms; moved: p90, p99, p99.9, p99.99, max)",
        LiveView.line(window(12_500, 200, 0, 1)));
  }

  @Test
  void aWindowOfTheWarmupAloneIsMarkedAsSuch() {
    WindowStats warmup = new WindowStats();
    warmup.warmupRequests(12);
    warmup.clientLag(575_000); // the JIT compiling: no statistic takes it
    assertEquals(
        "00:00:00–00:00:10  m          warm-up: 12 requests, left out of every statistic",
        LiveView.line(
            warmup.toSummary("m", "m", Map.of(), 1_767_225_600_000L, 1_767_225_610_000L)));
  }

  /** An interval of ms values given as text, null for an unbounded end. */
  private static EngineView.Interval interval(String loMs, String hiMs) {
    return new EngineView.Interval(
        loMs == null ? null : new BigDecimal(loMs), hiMs == null ? null : new BigDecimal(hiMs));
  }

  /**
   * The engine's view of {@link #window}: 2 scrapes ({@code failed} failed), TPOT p99 in the
   * engine's bucket (1, 2.5] ms, so the client's p99 of 2.00 ms is [-0.50, 1.00] ms outside it.
   */
  private static EngineView engine(int failed) {
    EngineView.Interval bucket = interval("1.000", "2.500");
    return new EngineView(
        2,
        failed,
        null,
        0,
        new EngineView.Latency(3, bucket, bucket, bucket, interval("2.500", null)),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        new EngineView.Outside(
            new EngineView.Added(
                interval("-0.500", "1.000"), interval("-0.500", "1.000"), interval(null, "0.000")),
            null));
  }

  @Test
  void theEnginesTpotP99AndTheTimeOutsideItAreIntervals() {
    assertEquals(
        "00:00:00–00:00:10  m          TPOT p50 1.50 p99 2.00 p99.9 2.00 ms (3 gaps), TTFT p50"
            + " 1.90 ms, errors 0, client lag max 0.40 ms, pause max 0.20 ms · engine TPOT p99"
            + " [1.00, 2.50] ms, outside [-0.50, 1.00] ms",
        LiveView.line(Records.with(window(400, 200, 0), "engine", engine(0))));
    assertEquals(
        "00:00:00–00:00:10  m          TPOT p50 1.50 p99 2.00 p99.9 2.00 ms (3 gaps), TTFT p50"
            + " 1.90 ms, errors 0, client lag max 0.40 ms, pause max 0.20 ms · engine TPOT p99"
            + " [1.00, 2.50] ms, outside [-0.50, 1.00] ms, 1 scrape failed",
        LiveView.line(Records.with(window(400, 200, 0), "engine", engine(1))));
  }

  @Test
  void aWindowWhoseEngineScrapesAllFailedSaysSo() {
    EngineView failed =
        new EngineView(0, 2, null, 0, null, null, null, null, null, null, null, null, null);
    assertEquals(
        "00:00:00–00:00:10  m          TPOT p50 1.50 p99 2.00 p99.9 2.00 ms (3 gaps), TTFT p50"
            + " 1.90 ms, errors 0, client lag max 0.40 ms, pause max 0.20 ms · engine: 2 scrapes"
            + " failed",
        LiveView.line(Records.with(window(400, 200, 0), "engine", failed)));
  }
}
