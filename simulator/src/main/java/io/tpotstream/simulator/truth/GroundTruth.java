package io.tpotstream.simulator.truth;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.cache.PrefixCache;
import io.tpotstream.simulator.engine.EngineMetrics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * What the simulator actually sent: per model, histograms of the actual gaps, the intended gaps,
 * the pacing error and the TTFT, and the pacing error over every model; per request (the most
 * recent {@code requestsKept}), every chunk's intended wait, due instant and actual send instant;
 * the prompt tokens the prefix cache held, per request and per model; and, when a file is given,
 * one JSON line per chunk. All instants are {@link System#nanoTime()} of the simulator's JVM:
 * compare them as differences. Beside it, the engine's own view in vLLM's names ({@link
 * #engineMetricsText}, {@code GET /metrics}): the same sends, less each profile's gateway delay.
 */
public final class GroundTruth implements AutoCloseable {
  private final long seed;
  private final int requestsKept;
  private final TruthFileWriter file;
  private final PrefixCache prefixCache;
  private final Map<String, ModelStats> models = new ConcurrentHashMap<>();
  private final EngineMetrics engineMetrics = new EngineMetrics();
  private final LinkedHashMap<String, RequestRecorder> requests;

  /**
   * @param seed the run seed, reported back
   * @param requestsKept how many of the most recent requests keep their per-chunk truth in memory
   * @param truthFile the JSONL file to append to, or null
   * @throws IllegalArgumentException when the file cannot be opened
   */
  public GroundTruth(long seed, int requestsKept, Path truthFile) {
    this(seed, requestsKept, truthFile, null);
  }

  /**
   * As {@link #GroundTruth(long, int, Path)}, reporting the state of {@code prefixCache} too (null:
   * the simulator runs without one).
   */
  public GroundTruth(long seed, int requestsKept, Path truthFile, PrefixCache prefixCache) {
    if (requestsKept < 0) {
      throw new IllegalArgumentException("requestsKept must be >= 0, got " + requestsKept);
    }
    this.seed = seed;
    this.requestsKept = requestsKept;
    this.prefixCache = prefixCache;
    this.file = truthFile == null ? null : TruthFileWriter.open(truthFile);
    this.requests =
        new LinkedHashMap<>() {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, RequestRecorder> eldest) {
            return size() > GroundTruth.this.requestsKept;
          }
        };
  }

  public long seed() {
    return seed;
  }

  /**
   * Starts recording a request that arrived at {@code arrivalNs}. A later request with the same id
   * replaces the earlier one in {@link #request} (both stay in the histograms and the file).
   */
  public RequestRecorder begin(String requestId, String model, long arrivalNs) {
    return begin(requestId, model, arrivalNs, true);
  }

  /**
   * As {@link #begin(String, String, long)}; {@code counted} false (the simulator's own warm-up)
   * keeps it out of the file and of the engine's metrics.
   */
  public RequestRecorder begin(String requestId, String model, long arrivalNs, boolean counted) {
    ModelStats stats = stats(model);
    stats.started();
    RequestRecorder recorder =
        new RequestRecorder(
            requestId,
            model,
            arrivalNs,
            stats,
            this,
            counted ? file : null,
            counted ? engineMetrics : null);
    synchronized (requests) {
      requests.put(requestId, recorder);
    }
    return recorder;
  }

  /** Counts a request for a known model refused before it got a plan (a 400 or a 401). */
  public void refused(String model, Outcome outcome) {
    ModelStats stats = stats(model);
    stats.started();
    stats.ended(outcome);
  }

  ModelStats stats(String model) {
    return models.computeIfAbsent(model, m -> new ModelStats());
  }

  /** The truth of a kept request, if it is still kept. */
  public Optional<RequestTruth> request(String requestId) {
    RequestRecorder recorder;
    synchronized (requests) {
      recorder = requests.get(requestId);
    }
    return Optional.ofNullable(recorder).map(RequestRecorder::snapshot);
  }

  /**
   * The truth of a kept request once it has ended (completed, cut, refused, or its client gone). A
   * client that has read a whole response may be microseconds ahead of the recording of its last
   * chunk: tests and benchmarks read the truth through this.
   *
   * @return empty when no such request is kept
   * @throws TimeoutException when the request is still in progress after {@code timeout}
   */
  public Optional<RequestTruth> awaitEnd(String requestId, Duration timeout)
      throws InterruptedException, TimeoutException {
    RequestRecorder recorder;
    synchronized (requests) {
      recorder = requests.get(requestId);
    }
    if (recorder == null) {
      return Optional.empty();
    }
    if (!recorder.awaitEnd(timeout)) {
      throw new TimeoutException("request " + requestId + " still in progress after " + timeout);
    }
    return Optional.of(recorder.snapshot());
  }

  /** The kept requests, oldest first. */
  public List<RequestTruth> requests() {
    List<RequestRecorder> kept;
    synchronized (requests) {
      kept = new ArrayList<>(requests.values());
    }
    return kept.stream().map(RequestRecorder::snapshot).toList();
  }

  /** Per model, since start or the last {@link #reset}. */
  public SortedMap<String, ModelTruth> models() {
    SortedMap<String, ModelTruth> snapshot = new TreeMap<>();
    models.forEach((model, stats) -> snapshot.put(model, stats.snapshot(stats.unfinished())));
    return snapshot;
  }

  public TruthReport report() {
    LatencyHistogram pacingErrors = new LatencyHistogram();
    models.values().forEach(stats -> stats.addPacingErrorsTo(pacingErrors));
    return new TruthReport(
        seed,
        Pacing.of(pacingErrors),
        prefixCache == null
            ? null
            : new TruthReport.CacheStatus(
                prefixCache.capacityBlocks(),
                prefixCache.heldBlocks(),
                prefixCache.evictedBlocks()),
        models(),
        file == null ? null : file.status());
  }

  /** {@link #report()} as the JSON that {@code GET /truth} returns. */
  public String toJson() {
    try {
      return Json.MAPPER.writeValueAsString(report());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the truth report as JSON", e);
    }
  }

  /**
   * The engine's view as {@code GET /metrics} returns it (Prometheus text format 0.0.4, {@link
   * EngineMetrics#CONTENT_TYPE}): per model, what the engine did since start; the KV-cache usage is
   * the prefix cache's held blocks over its capacity (0 without a cache).
   */
  public String engineMetricsText() {
    double usage =
        prefixCache == null ? 0 : prefixCache.heldBlocks() / (double) prefixCache.capacityBlocks();
    return engineMetrics.text(usage);
  }

  /**
   * Forgets the per-model statistics and the kept requests (the file keeps its lines; the prefix
   * cache, the server's state rather than its record, keeps its blocks, and the engine's metrics,
   * counters since start as an engine's are, keep counting). What is sent from then on counts in
   * the new statistics, the chunks of requests still streaming included, so that the statistics
   * after a reset are those of a window of time; those requests' count and outcome stay with the
   * statistics they started in, which are gone.
   */
  public void reset() {
    models.clear();
    synchronized (requests) {
      requests.clear();
    }
  }

  /** Writes the file's queued lines and closes it. */
  @Override
  public void close() {
    if (file != null) {
      file.close();
    }
  }
}
