package io.tpotstream.sink;

import io.tpotstream.common.Series;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import java.util.Map;
import java.util.Objects;
import java.util.Random;

/** Window summaries made by the statistics core from known samples, for tests. */
public final class TestWindows {
  /** 2026-01-01T00:00:00Z. */
  public static final long START_MS = 1_767_225_600_000L;

  public static final long SIZE_MS = 10_000;

  private TestWindows() {}

  public static long startOf(int window) {
    return START_MS + window * SIZE_MS;
  }

  /** The summary of {@link #stats} for window number {@code window} of the series. */
  public static WindowSummary summary(String model, Map<String, String> labels, int window) {
    return of(model, labels, window, stats(model, labels, window));
  }

  public static WindowSummary of(
      String model, Map<String, String> labels, int window, WindowStats stats) {
    return stats.toSummary(
        Series.name(model, labels), model, labels, startOf(window), startOf(window + 1));
  }

  /**
   * A window whose statistics are easy to check by hand: TPOT 10, 20, ..., 1000 µs (exact in
   * HdrHistogram: p50 0.500 ms, p99 0.990 ms, mean 0.505 ms), TTFT 1.0/1.2/1.5/2.0 ms, request TPOT
   * 0.5-0.8 ms, E2E 1.1/1.5/1.9/2.04 ms, 5 requests of which one failed (http_429), 104 output
   * tokens, 2 late samples; the client's worst loop lag 0.25 ms (not suspect), 3 coalesced gaps, 1
   * warm-up request; 3 of the completed requests reported the server's prefix cache: 4,500 prompt
   * tokens, 2,700 of them cached (a hit rate of 0.6).
   */
  public static WindowSummary known(String model, Map<String, String> labels, int window) {
    WindowStats stats = knownTpotAndTtft();
    for (long micros : new long[] {500, 600, 700, 800}) {
      stats.requestTpot.recordMicros(micros);
    }
    for (long micros : new long[] {1100, 1500, 1900, 2040}) {
      stats.e2e.recordMicros(micros);
    }
    stats.lateSamples(2);
    stats.clientLag(250);
    stats.coalescedGaps(3);
    stats.warmupRequests(1);
    stats.promptCache(3, 4_500, 2_700);
    return of(model, labels, window, stats);
  }

  /**
   * The first part of {@link #known}: TPOT 10, 20, ..., 1000 µs, TTFT 1.0/1.2/1.5/2.0 ms, 5
   * requests of which one failed (http_429), 104 output tokens; no request TPOT or E2E sample,
   * nothing from the client.
   */
  public static WindowStats knownTpotAndTtft() {
    WindowStats stats = new WindowStats();
    for (int i = 1; i <= 100; i++) {
      stats.tpot.recordMicros(i * 10L);
    }
    for (long micros : new long[] {1000, 1200, 1500, 2000}) {
      stats.ttft.recordMicros(micros);
    }
    stats.started(5);
    stats.completed(4, false);
    stats.failed("http_429", 1);
    stats.outputTokens(104);
    return stats;
  }

  /**
   * Deterministic, varied samples for one window: 200 TPOT gaps around 1.5-3.5 ms with a few stalls
   * of 50-150 ms, 5 requests (one failed with http_429).
   */
  public static WindowStats stats(String model, Map<String, String> labels, int window) {
    Random random = new Random(Objects.hash(model, labels, window));
    WindowStats stats = new WindowStats();
    for (int i = 0; i < 200; i++) {
      stats.tpot.recordMicros(
          random.nextInt(100) == 0
              ? 50_000 + random.nextInt(100_000)
              : 1_500 + random.nextInt(2_000));
    }
    for (int i = 0; i < 5; i++) {
      stats.ttft.recordMicros(200_000 + random.nextInt(300_000));
      stats.requestTpot.recordMicros(2_000 + random.nextInt(1_000));
      stats.e2e.recordMicros(900_000 + random.nextInt(200_000));
    }
    stats.started(5);
    stats.completed(4, false);
    stats.failed("http_429", 1);
    stats.outputTokens(205);
    return stats;
  }
}
