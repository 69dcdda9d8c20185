package io.tpotstream.aggregator.partial;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.engine.EngineSample;
import io.tpotstream.common.engine.EngineSums;
import io.tpotstream.common.stats.BucketCounts;
import io.tpotstream.common.summary.WindowStats;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one (window, series) has accumulated, in the cheap form both stages keep in memory: latency
 * samples as {@link BucketCounts}, plain counters and, when an engine was scraped, its {@link
 * EngineSums}. It is also the binary record of a partial between the stages and of a (window,
 * series) in the stores. {@link #toStats} turns it into the statistics core's {@link WindowStats},
 * once, when the window's summary is built.
 */
public final class WindowCounts {
  /**
   * 5 added the engine's sums, 4 the prompt-cache sums, 3 the client-touched TPOT histograms, 2 the
   * good-request count (goodput); 1 to 4 are still read, as none.
   */
  private static final int FORMAT = 5;

  /** The latency metrics formats 1 and 2 wrote. */
  private static final int METRICS_BEFORE_3 = 6;

  private final BucketCounts[] latency = new BucketCounts[Metric.VALUES.length];

  /** The tables {@link #clear} emptied, taken again by the metrics that count samples next. */
  private final BucketCounts[] emptied = new BucketCounts[Metric.VALUES.length];

  private long started;
  private long completedFull;
  private long tooShort;
  private long abandoned;
  private long firstChunkTokens;
  private long lateSamples;
  private long coalescedGaps;
  private long warmupRequests;
  private long goodRequests;
  private long cacheRequests;
  private long cachePromptTokens;
  private long cachedTokens;
  private TreeMap<String, Long> errors;

  /** The engine's sums: null until the first engine event, kept (cleared) with the tables. */
  private EngineSums engine;

  /** {@code count} samples of {@code micros} µs; false when the value was clamped. */
  public boolean latency(Metric metric, long micros, long count) {
    return buckets(metric.ordinal()).record(micros, count);
  }

  private BucketCounts buckets(int metric) {
    BucketCounts buckets = latency[metric];
    if (buckets == null) {
      buckets = emptied[metric] != null ? emptied[metric] : new BucketCounts();
      emptied[metric] = null;
      latency[metric] = buckets;
    }
    return buckets;
  }

  /**
   * Forgets everything, keeping the bucket tables for the next window of the same series: stage 1
   * counts each series' windows in one set of tables (grown to a few thousand buckets each) instead
   * of growing new ones every window. Written and read, these counts are as if new.
   */
  public void clear() {
    for (int m = 0; m < latency.length; m++) {
      if (latency[m] != null) {
        latency[m].clear();
        emptied[m] = latency[m];
        latency[m] = null;
      }
    }
    started = 0;
    completedFull = 0;
    tooShort = 0;
    abandoned = 0;
    firstChunkTokens = 0;
    lateSamples = 0;
    coalescedGaps = 0;
    warmupRequests = 0;
    goodRequests = 0;
    cacheRequests = 0;
    cachePromptTokens = 0;
    cachedTokens = 0;
    errors = null;
    if (engine != null) {
      engine.clear();
    }
  }

  public void started(long count) {
    started += count;
  }

  /** A complete response with at least two output-token chunks. */
  public void completedFull(long count) {
    completedFull += count;
  }

  /** A complete response with fewer than two output-token chunks (no TPOT sample). */
  public void tooShort(long count) {
    tooShort += count;
  }

  public void abandoned(long count) {
    abandoned += count;
  }

  public void failed(String errorClass, long count) {
    if (errors == null) {
      errors = new TreeMap<>();
    }
    errors.merge(errorClass, count, Long::sum);
  }

  /**
   * Output tokens of first chunks. A later chunk of k tokens gives exactly k TPOT samples in its
   * window, so a window's output tokens are these plus its TPOT count.
   */
  public void firstChunkTokens(long count) {
    firstChunkTokens += count;
  }

  public void lateSamples(long count) {
    lateSamples += count;
  }

  public void coalescedGaps(long count) {
    coalescedGaps += count;
  }

  public void warmupRequests(long count) {
    warmupRequests += count;
  }

  /** Finished requests that met every {@code --goodput} limit. */
  public void goodRequests(long count) {
    goodRequests += count;
  }

  /**
   * Completed requests that reported cached tokens, their prompt tokens, and the cached ones among
   * those.
   */
  public void promptCache(long requests, long promptTokens, long cachedTokens) {
    cacheRequests += requests;
    cachePromptTokens += promptTokens;
    this.cachedTokens += cachedTokens;
  }

  /** One scrape interval of an engine, for this series and window. */
  public void engine(EngineSample sample) {
    engineSums().add(sample);
  }

  private EngineSums engineSums() {
    if (engine == null) {
      engine = new EngineSums();
    }
    return engine;
  }

  private boolean hasEngine() {
    return engine != null && !engine.isEmpty();
  }

  /** Latency samples that were outside 0 µs to 1 h and clamped. */
  public long clamped() {
    long total = 0;
    for (BucketCounts b : latency) {
      total += b == null ? 0 : b.clamped();
    }
    return total;
  }

  /** Adds everything {@code other} holds. */
  public void add(WindowCounts other) {
    for (int m = 0; m < latency.length; m++) {
      if (other.latency[m] != null) {
        buckets(m).add(other.latency[m]);
      }
    }
    started += other.started;
    completedFull += other.completedFull;
    tooShort += other.tooShort;
    abandoned += other.abandoned;
    firstChunkTokens += other.firstChunkTokens;
    lateSamples += other.lateSamples;
    coalescedGaps += other.coalescedGaps;
    warmupRequests += other.warmupRequests;
    goodRequests += other.goodRequests;
    promptCache(other.cacheRequests, other.cachePromptTokens, other.cachedTokens);
    if (other.errors != null) {
      other.errors.forEach(this::failed);
    }
    if (other.hasEngine()) {
      engineSums().add(other.engine);
    }
  }

  /** The statistics core's accumulator of these counts (full histograms: build it once). */
  public WindowStats toStats() {
    return toStats(new WindowStats());
  }

  /** These counts added to {@code stats} (one that was {@link WindowStats#reset}, to reuse it). */
  public WindowStats toStats(WindowStats stats) {
    for (Metric m : Metric.VALUES) {
      if (latency[m.ordinal()] != null) {
        latency[m.ordinal()].addTo(m.of(stats));
      }
    }
    stats.started(started);
    stats.completed(completedFull, false);
    stats.completed(tooShort, true);
    stats.abandoned(abandoned);
    if (errors != null) {
      errors.forEach(stats::failed);
    }
    stats.outputTokens(firstChunkTokens + stats.tpot.count());
    stats.lateSamples(lateSamples);
    stats.coalescedGaps(coalescedGaps);
    stats.warmupRequests(warmupRequests);
    stats.good(goodRequests);
    stats.promptCache(cacheRequests, cachePromptTokens, cachedTokens);
    if (hasEngine()) {
      stats.engine(engine);
    }
    return stats;
  }

  /**
   * [format][counters, then the good-request count and the three prompt-cache sums][errors][latency
   * buckets per metric][0, or 1 and the engine's sums], varints.
   */
  public void writeTo(BinaryWriter out) {
    out.writeByte(FORMAT);
    out.writeVarLong(started)
        .writeVarLong(completedFull)
        .writeVarLong(tooShort)
        .writeVarLong(abandoned)
        .writeVarLong(firstChunkTokens)
        .writeVarLong(lateSamples)
        .writeVarLong(coalescedGaps)
        .writeVarLong(warmupRequests)
        .writeVarLong(goodRequests)
        .writeVarLong(cacheRequests)
        .writeVarLong(cachePromptTokens)
        .writeVarLong(cachedTokens);
    out.writeVarLong(errors == null ? 0 : errors.size());
    if (errors != null) {
      for (Map.Entry<String, Long> e : errors.entrySet()) {
        out.writeString(e.getKey()).writeVarLong(e.getValue());
      }
    }
    for (BucketCounts b : latency) {
      if (b == null) {
        out.writeByte(0);
      } else {
        out.writeByte(1);
        b.writeTo(out);
      }
    }
    if (hasEngine()) {
      out.writeByte(1);
      engine.writeTo(out);
    } else {
      out.writeByte(0);
    }
  }

  /** Reads what {@link #writeTo} wrote. */
  public static WindowCounts readFrom(BinaryReader in) {
    WindowCounts c = new WindowCounts();
    c.addFrom(in);
    return c;
  }

  /**
   * Adds what {@link #writeTo} wrote, read straight from {@code in}: stage 2 adds up a window's
   * partials from their bytes in one sum, building none of them.
   */
  public void addFrom(BinaryReader in) {
    int format = in.readByte();
    if (format < 1 || format > FORMAT) {
      throw new IllegalArgumentException(
          "window counts in format " + format + ", this aggregator reads " + FORMAT);
    }
    started += in.readVarLong();
    completedFull += in.readVarLong();
    tooShort += in.readVarLong();
    abandoned += in.readVarLong();
    firstChunkTokens += in.readVarLong();
    lateSamples += in.readVarLong();
    coalescedGaps += in.readVarLong();
    warmupRequests += in.readVarLong();
    goodRequests += format >= 2 ? in.readVarLong() : 0;
    if (format >= 4) {
      promptCache(in.readVarLong(), in.readVarLong(), in.readVarLong());
    }
    int errorClasses = in.readVarInt();
    for (int i = 0; i < errorClasses; i++) {
      failed(in.readString(), in.readVarLong());
    }
    int metrics = format >= 3 ? latency.length : METRICS_BEFORE_3;
    for (int m = 0; m < metrics; m++) {
      if (in.readByte() == 1) {
        buckets(m).addFrom(in);
      }
    }
    if (format >= 5 && in.readByte() == 1) {
      engineSums().addFrom(in);
    }
  }
}
