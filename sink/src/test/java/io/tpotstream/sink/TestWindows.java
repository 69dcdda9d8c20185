package io.tpotstream.sink;

import io.tpotstream.common.Records;
import io.tpotstream.common.Series;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.engine.EngineView.Added;
import io.tpotstream.common.engine.EngineView.Gauge;
import io.tpotstream.common.engine.EngineView.Interval;
import io.tpotstream.common.engine.EngineView.Latency;
import io.tpotstream.common.engine.EngineView.Outside;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.List;
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

  /** {@code summary} with {@code engine} as its engine section. */
  public static WindowSummary withEngine(WindowSummary summary, EngineView engine) {
    return Records.with(summary, "engine", engine);
  }

  /**
   * {@link #known} with {@link #knownEngine} as its engine section: the client's TPOT p50 0.500,
   * p99 0.990, p99.9 1.000 ms and TTFT p50 1.200, p99 and p99.9 2.000 ms beside the engine's.
   */
  public static WindowSummary knownWithEngine(
      String model, Map<String, String> labels, int window) {
    return withEngine(known(model, labels, window), knownEngine());
  }

  /**
   * The engine's view of {@link #known}'s window, as the aggregator would build it: 2 scrapes and 1
   * failed, {@code queue} and {@code waiting} not published; TPOT p50 in the engine's bucket (0.25,
   * 0.5] ms, p90 and p99 in (0.5, 1], p99.9 in (1, +Inf); TTFT p50 in (0.5, 1], the others in (1,
   * 2.5]; E2E all in (1, 2.5]; 3 and 2 running requests (max 3, mean 2.5), KV cache 12 % and 8 %
   * used, half the prefix-cache lookups hit. Outside the engine (the client's percentile minus the
   * engine's interval): TPOT p50 [0, 0.25], p99 [-0.01, 0.49], p99.9 [unbounded, 0]; TTFT p50 [0.2,
   * 0.7], p99 and p99.9 [-0.5, 1] ms.
   */
  public static EngineView knownEngine() {
    Interval tpotLow = interval("0.250", "0.500");
    Interval mid = interval("0.500", "1.000");
    Interval high = interval("1.000", "2.500");
    return new EngineView(
        2,
        1,
        List.of("queue", "waiting"),
        0,
        new Latency(254, tpotLow, mid, mid, interval("1.000", null)),
        new Latency(4, mid, high, high, high),
        new Latency(4, high, high, high, high),
        null,
        new Gauge(2, new BigDecimal("3"), new BigDecimal("2.5")),
        null,
        new Gauge(2, new BigDecimal("0.12"), new BigDecimal("0.1")),
        new BigDecimal("0.5000"),
        new Outside(
            new Added(
                interval("0.000", "0.250"), interval("-0.010", "0.490"), interval(null, "0.000")),
            new Added(
                interval("0.200", "0.700"),
                interval("-0.500", "1.000"),
                interval("-0.500", "1.000"))));
  }

  /**
   * A second engine view of {@link #known}'s window: 2 scrapes, none failed; TPOT p50 to p99 in the
   * engine's bucket (0.25, 0.5] ms, p99.9 in (0.5, 1]: the client's TPOT p99 of 0.990 ms is [0.49,
   * 0.74] ms outside the engine, proven (its lower bound is above 0); no TTFT published.
   */
  public static EngineView provenEngine() {
    Interval low = interval("0.250", "0.500");
    return new EngineView(
        2,
        0,
        null,
        0,
        new Latency(254, low, low, low, interval("0.500", "1.000")),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        new Outside(
            new Added(
                interval("0.000", "0.250"), interval("0.490", "0.740"), interval("0.000", "0.500")),
            null));
  }

  /** A window whose engine was not reached: {@code failed} failed scrapes and nothing else. */
  public static EngineView failedEngine(int failed) {
    return new EngineView(0, failed, null, 0, null, null, null, null, null, null, null, null, null);
  }

  /** An interval of ms values given as text, null for an unbounded end. */
  public static Interval interval(String loMs, String hiMs) {
    return new Interval(
        loMs == null ? null : new BigDecimal(loMs), hiMs == null ? null : new BigDecimal(hiMs));
  }
}
