package io.tpotstream.common.summary;

import io.tpotstream.common.Windows;
import io.tpotstream.common.engine.EngineSums;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.stats.LatencySummary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything one (series, window) accumulates: latency histograms, request outcomes, output tokens,
 * late samples and what the engine's own metrics said ({@link EngineSums}). Mutable; merge partials
 * with {@link #add}. The one place that turns samples into a {@link WindowSummary}, for the
 * aggregator, the offline {@code stats} command and the report.
 */
public final class WindowStats {
  public final LatencyHistogram tpot = new LatencyHistogram();
  public final LatencyHistogram ttft = new LatencyHistogram();
  public final LatencyHistogram requestTpot = new LatencyHistogram();
  public final LatencyHistogram e2e = new LatencyHistogram();
  public final LatencyHistogram scheduleLag = new LatencyHistogram();
  public final LatencyHistogram ttftFromIntended = new LatencyHistogram();

  /** The TPOT samples whose gap the client's own lag touched: a subset of {@link #tpot}. */
  public final LatencyHistogram tpotClientTouched = new LatencyHistogram();

  /** The same samples with the client's lag taken out of their gap (never below 0). */
  public final LatencyHistogram tpotClientCorrected = new LatencyHistogram();

  private long started;
  private long completed;
  private long failed;
  private long tooShort;
  private long abandoned;
  private final SortedMap<String, Long> errors = new TreeMap<>();
  private long outputTokens;
  private long lateSamples;
  private long clientPauseMaxUs = -1;
  private long clientLagMaxUs = -1;
  private long coalescedGaps;
  private long warmupRequests;
  private long goodRequests;
  private long cacheRequests;
  private long cachePromptTokens;
  private long cachedTokens;
  private final EngineSums engine = new EngineSums();
  private final HistogramCodec.Encoder encoder = new HistogramCodec.Encoder();

  /**
   * A window is {@code clientSuspect} when the client's own lag could have raised a reported TPOT
   * percentile by more than this (µs).
   */
  public static final long DEFAULT_CLIENT_LAG_THRESHOLD_US = 1_000;

  public void started(long count) {
    started += count;
  }

  /** A complete response; {@code tooShort} when it had fewer than two output tokens. */
  public void completed(long count, boolean tooShort) {
    completed += count;
    if (tooShort) {
      this.tooShort += count;
    }
  }

  public void failed(String errorClass, long count) {
    failed += count;
    errors.merge(errorClass, count, Long::sum);
  }

  public void abandoned(long count) {
    abandoned += count;
  }

  public void outputTokens(long count) {
    outputTokens += count;
  }

  public void lateSamples(long count) {
    lateSamples += count;
  }

  /** Notes a producer's own worst pause (µs); the window keeps the maximum. */
  public void clientPause(long micros) {
    clientPauseMaxUs = Math.max(clientPauseMaxUs, micros);
  }

  /** Notes a producer's worst event-loop lag (µs); the window keeps the maximum. */
  public void clientLag(long micros) {
    clientLagMaxUs = Math.max(clientLagMaxUs, micros);
  }

  /**
   * {@code count} TPOT samples of {@code micros} whose gap the client's own lag touched for {@code
   * lagMicros} each (already recorded in {@link #tpot}).
   */
  public void clientTouched(long micros, long lagMicros, long count) {
    tpotClientTouched.recordMicros(micros, count);
    tpotClientCorrected.recordMicros(Math.max(0, micros - lagMicros), count);
  }

  /** Counts TPOT samples whose chunk arrived in the same socket read as the chunk before. */
  public void coalescedGaps(long count) {
    coalescedGaps += count;
  }

  /** Counts warm-up requests, left out of every other statistic. */
  public void warmupRequests(long count) {
    warmupRequests += count;
  }

  /** Counts finished requests that met every {@code --goodput} limit. */
  public void good(long count) {
    goodRequests += count;
  }

  /**
   * Counts {@code requests} completed requests that reported cached tokens: {@code promptTokens}
   * prompt tokens in all, {@code cachedTokens} of them read from the server's prefix cache.
   */
  public void promptCache(long requests, long promptTokens, long cachedTokens) {
    cacheRequests += requests;
    cachePromptTokens += promptTokens;
    this.cachedTokens += cachedTokens;
  }

  /** Adds what the window's engine events gathered (its {@code engine} section). */
  public void engine(EngineSums sums) {
    engine.add(sums);
  }

  /**
   * Forgets everything, to build the next summary with the same histograms (stage 2 builds
   * thousands; each new set would be 1.5 MB of counts to allocate and clear).
   */
  public void reset() {
    for (LatencyHistogram h :
        List.of(
            tpot,
            ttft,
            requestTpot,
            e2e,
            scheduleLag,
            ttftFromIntended,
            tpotClientTouched,
            tpotClientCorrected)) {
      h.reset();
    }
    started = 0;
    completed = 0;
    failed = 0;
    tooShort = 0;
    abandoned = 0;
    errors.clear();
    outputTokens = 0;
    lateSamples = 0;
    clientPauseMaxUs = -1;
    clientLagMaxUs = -1;
    coalescedGaps = 0;
    warmupRequests = 0;
    goodRequests = 0;
    cacheRequests = 0;
    cachePromptTokens = 0;
    cachedTokens = 0;
    engine.clear();
  }

  /** Adds everything {@code other} holds to this. */
  public WindowStats add(WindowStats other) {
    tpot.add(other.tpot);
    ttft.add(other.ttft);
    requestTpot.add(other.requestTpot);
    e2e.add(other.e2e);
    scheduleLag.add(other.scheduleLag);
    ttftFromIntended.add(other.ttftFromIntended);
    tpotClientTouched.add(other.tpotClientTouched);
    tpotClientCorrected.add(other.tpotClientCorrected);
    started += other.started;
    completed += other.completed;
    failed += other.failed;
    tooShort += other.tooShort;
    abandoned += other.abandoned;
    other.errors.forEach((k, v) -> errors.merge(k, v, Long::sum));
    outputTokens += other.outputTokens;
    lateSamples += other.lateSamples;
    clientPauseMaxUs = Math.max(clientPauseMaxUs, other.clientPauseMaxUs);
    clientLagMaxUs = Math.max(clientLagMaxUs, other.clientLagMaxUs);
    coalescedGaps += other.coalescedGaps;
    warmupRequests += other.warmupRequests;
    goodRequests += other.goodRequests;
    cacheRequests += other.cacheRequests;
    cachePromptTokens += other.cachePromptTokens;
    cachedTokens += other.cachedTokens;
    engine.add(other.engine);
    return this;
  }

  public long started() {
    return started;
  }

  public long completed() {
    return completed;
  }

  public long failed() {
    return failed;
  }

  public long tooShort() {
    return tooShort;
  }

  public long abandoned() {
    return abandoned;
  }

  public Map<String, Long> errors() {
    return errors;
  }

  public long outputTokens() {
    return outputTokens;
  }

  public long lateSamples() {
    return lateSamples;
  }

  /** The producers' worst event-loop lag in µs, or -1 when none was reported. */
  public long clientLagMaxUs() {
    return clientLagMaxUs;
  }

  /** The producers' worst own pause in µs, or -1 when none was reported. */
  public long clientPauseMaxUs() {
    return clientPauseMaxUs;
  }

  public long coalescedGaps() {
    return coalescedGaps;
  }

  public long warmupRequests() {
    return warmupRequests;
  }

  /** Finished requests that met every goodput limit (0 when no limits were given). */
  public long goodRequests() {
    return goodRequests;
  }

  /**
   * The engine's own view of the window, beside the client's TPOT and TTFT histograms, or null when
   * no engine event counted in it.
   */
  public EngineView engineView() {
    return engine.view(tpot, ttft);
  }

  /** The prefix cache the window's requests reported, or null when none reported it. */
  public PromptCache promptCache() {
    return PromptCache.of(cacheRequests, cachePromptTokens, cachedTokens);
  }

  /** Out-of-range samples clamped across all histograms. */
  public long clamped() {
    return tpot.clamped()
        + ttft.clamped()
        + requestTpot.clamped()
        + e2e.clamped()
        + scheduleLag.clamped()
        + ttftFromIntended.clamped();
  }

  /**
   * What the client's own lag did to TPOT: how many samples it touched, their share of the tail at
   * or above p99, the percentiles with that lag taken out of the touched gaps (the most the server
   * can have been faster), and which reported percentiles the lag raises by more than {@code
   * thresholdUs}. Null when no sample was touched (a summary then leaves it out).
   */
  public ClientTouch clientTouch(long thresholdUs) {
    long touched = tpotClientTouched.count();
    if (touched == 0) {
      return null;
    }
    long p99 = tpot.percentileMicros(99.0);
    BigDecimal tailShare =
        LatencyHistogram.ratio(tpotClientTouched.countAtOrAbove(p99), tpot.countAtOrAbove(p99), 4);
    LatencyHistogram without = tpot.without(tpotClientTouched);
    without.add(tpotClientCorrected);
    List<String> moved = new ArrayList<>();
    for (int i = 0; i < REPORTED.length; i++) {
      long all = REPORTED[i] == 100 ? tpot.maxMicros() : tpot.percentileMicros(REPORTED[i]);
      long rest = REPORTED[i] == 100 ? without.maxMicros() : without.percentileMicros(REPORTED[i]);
      if (all - rest > thresholdUs) {
        moved.add(REPORTED_NAMES[i]);
      }
    }
    return new ClientTouch(touched, tailShare, without.summary(), moved);
  }

  /** Whether the client could have moved a percentile; null when no producer said how it ran. */
  private static Boolean suspect(ClientTouch touch, long clientWorstUs) {
    if (touch != null) {
      return touch.movedAny();
    }
    return clientWorstUs < 0 ? null : Boolean.FALSE;
  }

  /** The TPOT percentiles a summary reports (100: the max), and their names. */
  private static final double[] REPORTED = {50.0, 90.0, 99.0, 99.9, 99.99, 100};

  private static final String[] REPORTED_NAMES = {"p50", "p90", "p99", "p99.9", "p99.99", "max"};

  /** The summary of this (series, window), suspect past the default client-lag threshold. */
  public WindowSummary toSummary(
      String series,
      String model,
      Map<String, String> labels,
      long windowStartMs,
      long windowEndMs) {
    return toSummary(
        series, model, labels, windowStartMs, windowEndMs, DEFAULT_CLIENT_LAG_THRESHOLD_US);
  }

  /**
   * The summary of this (series, window); {@code clientSuspect} when the producers' own lag could
   * have raised a reported TPOT percentile by more than {@code clientLagThresholdUs}.
   */
  public WindowSummary toSummary(
      String series,
      String model,
      Map<String, String> labels,
      long windowStartMs,
      long windowEndMs,
      long clientLagThresholdUs) {
    return toSummary(
        series, model, labels, windowStartMs, windowEndMs, clientLagThresholdUs, SloSpec.NONE);
  }

  /**
   * As {@link #toSummary(String, String, Map, long, long, long)}, with {@code slo} evaluated on
   * this window (no {@code slo} section when it is empty).
   */
  public WindowSummary toSummary(
      String series,
      String model,
      Map<String, String> labels,
      long windowStartMs,
      long windowEndMs,
      long clientLagThresholdUs,
      SloSpec slo) {
    ClientTouch touch = clientTouch(clientLagThresholdUs);
    long clientWorstUs = Math.max(clientLagMaxUs, clientPauseMaxUs);
    RequestCounts requests =
        new RequestCounts(
            started,
            completed,
            failed,
            tooShort,
            abandoned,
            LatencyHistogram.ratio(failed + abandoned, completed + failed + abandoned, 4),
            errors);
    BigDecimal tokensPerSecond =
        LatencyHistogram.ratio(outputTokens * 1000, windowEndMs - windowStartMs, 3);
    EncodedHistograms histograms =
        new EncodedHistograms(
            encoder.encode(tpot),
            encoder.encode(ttft),
            encoder.encode(requestTpot),
            encoder.encode(e2e),
            scheduleLag.count() == 0 ? null : encoder.encode(scheduleLag),
            ttftFromIntended.count() == 0 ? null : encoder.encode(ttftFromIntended),
            tpotClientTouched.count() == 0 ? null : encoder.encode(tpotClientTouched),
            tpotClientCorrected.count() == 0 ? null : encoder.encode(tpotClientCorrected));
    return new WindowSummary(
        WindowSummary.VERSION,
        series,
        model,
        labels == null ? null : new TreeMap<>(labels),
        Windows.iso(windowStartMs),
        Windows.iso(windowEndMs),
        windowStartMs,
        windowEndMs,
        tpot.summary(),
        ttft.summary(),
        requestTpot.summary(),
        e2e.summary(),
        requests,
        outputTokens,
        tokensPerSecond,
        lateSamples,
        optional(scheduleLag),
        optional(ttftFromIntended),
        clientPauseMaxUs < 0 ? null : LatencyHistogram.ms(clientPauseMaxUs),
        clientLagMaxUs < 0 ? null : LatencyHistogram.ms(clientLagMaxUs),
        coalescedGaps,
        suspect(touch, clientWorstUs),
        touch,
        warmupRequests,
        promptCache(),
        engineView(),
        slo.evaluate(this),
        histograms);
  }

  /**
   * Rebuilds the stats a summary was made from (histograms decoded, counts copied), all but its
   * engine section: an engine's percentiles are bucket intervals, not the buckets they came from.
   */
  public static WindowStats fromSummary(WindowSummary summary) {
    WindowStats stats = new WindowStats();
    EncodedHistograms h = summary.histograms();
    addEncoded(stats.tpot, h.tpot());
    addEncoded(stats.ttft, h.ttft());
    addEncoded(stats.requestTpot, h.requestTpot());
    addEncoded(stats.e2e, h.e2e());
    addEncoded(stats.scheduleLag, h.scheduleLag());
    addEncoded(stats.ttftFromIntended, h.ttftFromIntended());
    addEncoded(stats.tpotClientTouched, h.tpotClientTouched());
    addEncoded(stats.tpotClientCorrected, h.tpotClientCorrected());
    RequestCounts r = summary.requests();
    if (r != null) {
      stats.started = r.started();
      stats.completed = r.completed();
      stats.failed = r.failed();
      stats.tooShort = r.tooShort();
      stats.abandoned = r.abandoned();
      stats.errors.putAll(r.errors());
    }
    stats.outputTokens = summary.outputTokens();
    stats.lateSamples = summary.lateSamples();
    if (summary.clientPauseMaxMs() != null) {
      stats.clientPauseMaxUs = summary.clientPauseMaxMs().movePointRight(3).longValueExact();
    }
    if (summary.clientLagMaxMs() != null) {
      stats.clientLagMaxUs = summary.clientLagMaxMs().movePointRight(3).longValueExact();
    }
    stats.coalescedGaps = summary.coalescedGaps();
    stats.warmupRequests = summary.warmupRequests();
    PromptCache cache = summary.promptCache();
    if (cache != null) {
      stats.promptCache(cache.requests(), cache.promptTokens(), cache.cachedTokens());
    }
    if (summary.slo() != null && summary.slo().goodRequests() != null) {
      stats.goodRequests = summary.slo().goodRequests();
    }
    return stats;
  }

  private static void addEncoded(LatencyHistogram into, String encoded) {
    if (encoded != null) {
      into.add(HistogramCodec.decode(encoded));
    }
  }

  private static LatencySummary optional(LatencyHistogram histogram) {
    return histogram.count() == 0 ? null : histogram.summary();
  }
}
