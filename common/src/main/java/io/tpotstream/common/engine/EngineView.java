package io.tpotstream.common.engine;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;

/**
 * The engine's own view of a window, beside the client's: the {@code engine} section of a window
 * summary (docs/design.md, "Window summary"), built from the window's {@code engine} events. An
 * engine's histograms have coarse buckets, so its percentiles are intervals (the bucket each falls
 * in), and so is what lies outside the engine: the client's percentile minus the engine's interval.
 *
 * @param scrapes successful scrapes in the window
 * @param failedScrapes failed scrapes reported in the window
 * @param missing the metrics some scrape of the window did not find, sorted
 * @param resets counter resets seen (engine restarts)
 * @param tpot the engine's inter-token latency
 * @param ttft the engine's time to first token
 * @param e2e the engine's end-to-end request latency
 * @param queue the engine's queue time
 * @param running requests running, over the window's scrapes
 * @param waiting requests waiting, over the window's scrapes
 * @param kvCacheUsage the KV cache's used fraction, over the window's scrapes
 * @param prefixCacheHitRate prefix-cache hits / queries over the window (tokens), when published
 * @param outside the client's percentile minus the engine's, where both exist
 */
@JsonPropertyOrder({
  "scrapes",
  "failedScrapes",
  "missing",
  "resets",
  "tpot",
  "ttft",
  "e2e",
  "queue",
  "running",
  "waiting",
  "kvCacheUsage",
  "prefixCacheHitRate",
  "outside"
})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EngineView(
    long scrapes,
    long failedScrapes,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> missing,
    long resets,
    Latency tpot,
    Latency ttft,
    Latency e2e,
    Latency queue,
    Gauge running,
    Gauge waiting,
    Gauge kvCacheUsage,
    BigDecimal prefixCacheHitRate,
    Outside outside) {

  public EngineView {
    missing = missing == null ? List.of() : List.copyOf(missing);
  }

  /**
   * Where a value lies, in ms: {@code loMs} ≤ value ≤ {@code hiMs}; a null end is unbounded (a
   * percentile in the engine's {@code +Inf} bucket has no upper end).
   */
  @JsonPropertyOrder({"loMs", "hiMs"})
  public record Interval(BigDecimal loMs, BigDecimal hiMs) {}

  /**
   * An engine histogram over the window: its observations and the bucket of each percentile (none
   * when it has no observation). {@code unmerged} counts the window's histograms of this metric
   * left out because their bucket bounds differed from the ones merged (an engine restarted with
   * other buckets, two versions behind one model): the merged ones are those whose bounds sort
   * first (fewest, then the smallest), a choice that depends on the events alone; null when none
   * was left out.
   */
  @JsonPropertyOrder({"count", "p50Ms", "p90Ms", "p99Ms", "p999Ms", "unmerged"})
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Latency(
      long count, Interval p50Ms, Interval p90Ms, Interval p99Ms, Interval p999Ms, Long unmerged) {

    /** A latency whose histograms were all merged. */
    public Latency(long count, Interval p50Ms, Interval p90Ms, Interval p99Ms, Interval p999Ms) {
      this(count, p50Ms, p90Ms, p99Ms, p999Ms, null);
    }

    /** The intervals at p50, p99 and p99.9, in that order: the ones the sinks give. */
    @JsonIgnore
    public List<Interval> p50p99p999() {
      return Arrays.asList(p50Ms, p99Ms, p999Ms);
    }
  }

  /** A gauge over the window's scrapes: how many, its largest and its mean value. */
  @JsonPropertyOrder({"samples", "max", "mean"})
  public record Gauge(long samples, BigDecimal max, BigDecimal mean) {}

  /** The client's percentile minus the engine's, for TPOT and TTFT (null: one side has none). */
  @JsonPropertyOrder({"tpot", "ttft"})
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Outside(Added tpot, Added ttft) {}

  /**
   * Time added outside the engine at p50, p99 and p99.9, each an interval (a bound, not a value).
   */
  @JsonPropertyOrder({"p50Ms", "p99Ms", "p999Ms"})
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Added(Interval p50Ms, Interval p99Ms, Interval p999Ms) {
    /** The intervals at p50, p99 and p99.9, in that order. */
    @JsonIgnore
    public List<Interval> p50p99p999() {
      return Arrays.asList(p50Ms, p99Ms, p999Ms);
    }
  }
}
