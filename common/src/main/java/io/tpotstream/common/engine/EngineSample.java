package io.tpotstream.common.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.util.List;

/**
 * One scrape interval of one engine's metrics endpoint, for one model: the {@code engine} object of
 * an {@code engine} event (docs/design.md, "Engine event"). Histograms and counters are deltas over
 * the interval that ended at the event's {@code ts}; gauges are their values at that scrape. A
 * value the endpoint did not publish is null (omitted) and its metric named in {@code missing}.
 *
 * @param endpoint the scraped URL as printed (credentials and query values masked)
 * @param mapping the metric names read: {@code vllm}, {@code sglang}, {@code tgi} or a mapping
 *     file's name
 * @param intervalMs the time the deltas cover (0 on an engine's first scrape: gauges only)
 * @param scrapes 1 when this record holds a scrape's values, 0 when it only reports failures
 * @param failedScrapes scrapes of this endpoint that failed since the previous record
 * @param failure why the last failed scrape failed (one line, masked), or null
 * @param missing the mapping's metrics the endpoint did not publish at this scrape
 * @param resets counters or histograms found below their previous value (an engine restart): their
 *     delta is taken from zero
 * @param tpot the engine's inter-token latency histogram delta
 * @param ttft the engine's time-to-first-token histogram delta
 * @param e2e the engine's end-to-end request latency histogram delta
 * @param queue the engine's queue-time histogram delta
 * @param running requests running at the scrape
 * @param waiting requests waiting (queued) at the scrape
 * @param kvCacheUsage the KV cache's used fraction (0..1) at the scrape
 * @param prefixQueries prompt tokens looked up in the prefix cache over the interval
 * @param prefixHits of those, the tokens found
 */
@JsonPropertyOrder({
  "endpoint",
  "mapping",
  "intervalMs",
  "scrapes",
  "failedScrapes",
  "failure",
  "missing",
  "resets",
  "tpot",
  "ttft",
  "e2e",
  "queue",
  "running",
  "waiting",
  "kvCacheUsage",
  "prefixQueries",
  "prefixHits"
})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EngineSample(
    String endpoint,
    String mapping,
    long intervalMs,
    int scrapes,
    int failedScrapes,
    String failure,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonSetter(contentNulls = Nulls.FAIL)
        List<String> missing,
    Integer resets,
    EngineHistogram tpot,
    EngineHistogram ttft,
    EngineHistogram e2e,
    EngineHistogram queue,
    Double running,
    Double waiting,
    Double kvCacheUsage,
    Long prefixQueries,
    Long prefixHits) {

  public EngineSample {
    missing = missing == null ? null : List.copyOf(missing);
  }

  /** A record of scrapes that failed and nothing else. */
  public static EngineSample failed(
      String endpoint, String mapping, int failedScrapes, String failure) {
    return new EngineSample(
        endpoint,
        mapping,
        0,
        0,
        failedScrapes,
        failure,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }
}
