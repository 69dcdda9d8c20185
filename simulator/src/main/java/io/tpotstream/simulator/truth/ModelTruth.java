package io.tpotstream.simulator.truth;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.PromptCache;
import java.util.SortedMap;

/**
 * What the simulator actually sent for one model since start (or the last reset).
 *
 * @param requests requests that got a plan (faults included)
 * @param outcomes requests by how they ended ({@code completed}, {@code cut}, {@code http_429}...)
 * @param chunks output chunks sent
 * @param tokens output tokens sent
 * @param malformedLines injected invalid {@code data:} lines
 * @param gap actual gaps between consecutive chunk sends of a request
 * @param intendedGap the gaps its profile asked for (the plan's draws)
 * @param pacingError per chunk, how far from its due instant it was sent (late or early): how much
 *     its gap (or, for a first chunk, its TTFT) differed from the intended one
 * @param ttft first chunk's send minus the request's arrival
 * @param prefixCache the requests served with the prefix cache: how many, their prompt tokens, the
 *     ones the cache held and the hit rate (the same sums a window summary's {@code promptCache}
 *     has); null without a cache
 * @param histograms {@code gap}, {@code intendedGap}, {@code pacingError}, {@code ttft}: base64 of
 *     HdrHistogram's compressed encoding, in µs (decode with common's HistogramCodec)
 */
@JsonPropertyOrder({
  "requests",
  "outcomes",
  "chunks",
  "tokens",
  "malformedLines",
  "gap",
  "intendedGap",
  "pacingError",
  "ttft",
  "prefixCache",
  "histograms"
})
public record ModelTruth(
    long requests,
    SortedMap<String, Long> outcomes,
    long chunks,
    long tokens,
    long malformedLines,
    LatencySummary gap,
    LatencySummary intendedGap,
    LatencySummary pacingError,
    LatencySummary ttft,
    PromptCache prefixCache,
    SortedMap<String, String> histograms) {}
