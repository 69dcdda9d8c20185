package io.tpotstream.simulator.truth;

import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.PromptCache;
import java.util.EnumMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Per-model accumulators; event loops of several threads record into it, under its lock. */
final class ModelStats {
  private final LatencyHistogram gap = new LatencyHistogram();
  private final LatencyHistogram intendedGap = new LatencyHistogram();
  private final LatencyHistogram pacingError = new LatencyHistogram();
  private final LatencyHistogram ttft = new LatencyHistogram();
  private final Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
  private long requests;
  private long chunks;
  private long tokens;
  private long malformedLines;
  private long cacheRequests;
  private long promptTokens;
  private long cachedTokens;

  synchronized void started() {
    requests++;
  }

  synchronized void chunk(long gapNs, long intendedGapNs, long pacingErrorNs, long ttftNs, int n) {
    if (gapNs >= 0) {
      gap.recordNanos(gapNs);
      intendedGap.recordNanos(intendedGapNs);
    }
    if (ttftNs >= 0) {
      ttft.recordNanos(ttftNs);
    }
    pacingError.recordNanos(Math.abs(pacingErrorNs));
    chunks++;
    tokens += n;
  }

  synchronized void prompt(int prompt, int cached) {
    cacheRequests++;
    promptTokens += prompt;
    cachedTokens += cached;
  }

  synchronized void malformedLine() {
    malformedLines++;
  }

  synchronized void ended(Outcome outcome) {
    outcomes.merge(outcome, 1L, Long::sum);
  }

  synchronized ModelTruth snapshot(long inProgress) {
    SortedMap<String, Long> byOutcome = new TreeMap<>();
    outcomes.forEach((outcome, count) -> byOutcome.put(outcome.key(), count));
    if (inProgress > 0) {
      byOutcome.put(Outcome.IN_PROGRESS.key(), inProgress);
    }
    SortedMap<String, String> histograms = new TreeMap<>();
    histograms.put("gap", HistogramCodec.encode(gap));
    histograms.put("intendedGap", HistogramCodec.encode(intendedGap));
    histograms.put("pacingError", HistogramCodec.encode(pacingError));
    histograms.put("ttft", HistogramCodec.encode(ttft));
    return new ModelTruth(
        requests,
        byOutcome,
        chunks,
        tokens,
        malformedLines,
        gap.summary(),
        intendedGap.summary(),
        pacingError.summary(),
        ttft.summary(),
        PromptCache.of(cacheRequests, promptTokens, cachedTokens),
        histograms);
  }

  synchronized void addPacingErrorsTo(LatencyHistogram all) {
    all.add(pacingError);
  }

  synchronized long unfinished() {
    long ended = outcomes.values().stream().mapToLong(Long::longValue).sum();
    return requests - ended;
  }
}
