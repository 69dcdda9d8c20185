package io.tpotstream.common.summary;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.slo.SloResult;
import io.tpotstream.common.stats.LatencySummary;
import java.math.BigDecimal;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The aggregator's output for one series and window (docs/design.md, "Window summary"). Latencies
 * in ms; {@code scheduleLag} and {@code ttftFromIntended} are omitted in closed-loop runs; {@code
 * clientPauseMaxMs} is the producers' own worst pause seen in the window, when they reported it;
 * {@code clientLagMaxMs} their worst event-loop lag; {@code coalescedGaps} the TPOT samples taken
 * from chunks that arrived in one socket read with the chunk before; {@code clientTouched} what the
 * producers' own lag did to the TPOT samples ({@link ClientTouch}); {@code clientSuspect} is true
 * when that lag could have raised a reported TPOT percentile by more than the threshold (null when
 * no producer reported its lag); {@code warmupRequests} counts warm-up requests left out of every
 * statistic; {@code promptCache} the prefix cache the window's completed requests reported ({@link
 * PromptCache}, absent when none did); {@code engine} the engine's own view of the window ({@link
 * EngineView}, absent when no engine was scraped); {@code slo} is present when the aggregator was
 * given {@code --slo} or {@code --goodput}.
 */
@JsonPropertyOrder({
  "v",
  "series",
  "model",
  "labels",
  "windowStart",
  "windowEnd",
  "windowStartMs",
  "windowEndMs",
  "tpot",
  "ttft",
  "requestTpot",
  "e2e",
  "requests",
  "outputTokens",
  "tokensPerSecond",
  "lateSamples",
  "scheduleLag",
  "ttftFromIntended",
  "clientPauseMaxMs",
  "clientLagMaxMs",
  "coalescedGaps",
  "clientSuspect",
  "clientTouched",
  "warmupRequests",
  "promptCache",
  "engine",
  "slo",
  "histograms"
})
public record WindowSummary(
    int v,
    String series,
    String model,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) SortedMap<String, String> labels,
    String windowStart,
    String windowEnd,
    long windowStartMs,
    long windowEndMs,
    LatencySummary tpot,
    LatencySummary ttft,
    LatencySummary requestTpot,
    LatencySummary e2e,
    RequestCounts requests,
    long outputTokens,
    BigDecimal tokensPerSecond,
    long lateSamples,
    LatencySummary scheduleLag,
    LatencySummary ttftFromIntended,
    BigDecimal clientPauseMaxMs,
    BigDecimal clientLagMaxMs,
    long coalescedGaps,
    Boolean clientSuspect,
    ClientTouch clientTouched,
    long warmupRequests,
    PromptCache promptCache,
    EngineView engine,
    SloResult slo,
    EncodedHistograms histograms) {

  /** The summary format version this code writes. */
  public static final int VERSION = 1;

  public WindowSummary {
    labels = labels == null ? new TreeMap<>() : new TreeMap<>(labels);
  }

  /** This summary with {@code slo} as its SLO section. */
  public WindowSummary withSlo(SloResult slo) {
    return new WindowSummary(
        v,
        series,
        model,
        labels,
        windowStart,
        windowEnd,
        windowStartMs,
        windowEndMs,
        tpot,
        ttft,
        requestTpot,
        e2e,
        requests,
        outputTokens,
        tokensPerSecond,
        lateSamples,
        scheduleLag,
        ttftFromIntended,
        clientPauseMaxMs,
        clientLagMaxMs,
        coalescedGaps,
        clientSuspect,
        clientTouched,
        warmupRequests,
        promptCache,
        engine,
        slo,
        histograms);
  }
}
