package io.tpotstream.common.engine;

import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.event.EngineBounds;
import io.tpotstream.common.stats.LatencyHistogram;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * What the {@code engine} events of one (series, window) add up to, and the one builder of the
 * window's {@link EngineView}: per histogram (TPOT, TTFT, E2E, queue) the bucket bounds and the
 * summed counts, gauges as samples, sum and maximum, the prefix-cache counters, scrapes, failures,
 * resets and the metrics some scrape missed. Stage 1 adds events into it ({@link #add}), its binary
 * form is part of a window's partial ({@link #writeTo}, {@link #addFrom}), stage 2 adds partials up
 * ({@link #add(EngineSums)}) and {@code WindowStats} builds the summary's section ({@link #view}).
 *
 * <p>Every sum is exact and independent of the order it was added in, so the summaries stay a
 * function of the set of events (docs/design.md): gauges are kept in millionths (integers, never a
 * sum of doubles), and when histograms of one metric have different bucket bounds the ones whose
 * bounds sort first (fewest bounds, then the smallest) are merged and the others counted as {@code
 * unmerged}. Sums saturate at a long's limit instead of wrapping (bounded inputs never reach it).
 */
public final class EngineSums {
  /** The histograms in the order of {@link EngineBounds#HISTOGRAMS}. */
  static final int TPOT = 0;

  static final int TTFT = 1;
  static final int E2E = 2;
  static final int QUEUE = 3;

  /** Gauges are kept in millionths of their value. */
  private static final long GAUGE_SCALE = 1_000_000L;

  /** The decimals of a gauge's max and mean and of the prefix-cache hit rate. */
  private static final int DECIMALS = 4;

  /** The most missing metric names a window keeps (the first in sort order): a record's most. */
  static final int MAX_MISSING = EngineBounds.MAX_MISSING;

  private final Buckets[] histograms = new Buckets[4];
  private final Gauge running = new Gauge();
  private final Gauge waiting = new Gauge();
  private final Gauge kvCacheUsage = new Gauge();
  private long records;
  private long scrapes;
  private long failedScrapes;
  private long resets;
  private long prefixQueries;
  private long prefixHits;
  private final TreeSet<String> missing = new TreeSet<>();

  /** Adds one engine event's sample (valid by the token event rules). */
  public void add(EngineSample s) {
    records++;
    scrapes = plus(scrapes, s.scrapes());
    failedScrapes = plus(failedScrapes, s.failedScrapes());
    if (s.resets() != null) {
      resets = plus(resets, s.resets());
    }
    if (s.missing() != null) {
      addMissing(s.missing());
    }
    EngineHistogram[] h = {s.tpot(), s.ttft(), s.e2e(), s.queue()};
    for (int m = 0; m < h.length; m++) {
      if (h[m] != null) {
        merge(m, toArray(h[m].leUs()), toArray(h[m].counts()), 1, 0);
      }
    }
    running.add(s.running());
    waiting.add(s.waiting());
    kvCacheUsage.add(s.kvCacheUsage());
    if (s.prefixQueries() != null && s.prefixHits() != null) {
      prefixQueries = plus(prefixQueries, s.prefixQueries());
      prefixHits = plus(prefixHits, s.prefixHits());
    }
  }

  /** Adds everything {@code other} holds. */
  public void add(EngineSums other) {
    records = plus(records, other.records);
    scrapes = plus(scrapes, other.scrapes);
    failedScrapes = plus(failedScrapes, other.failedScrapes);
    resets = plus(resets, other.resets);
    addMissing(other.missing);
    for (int m = 0; m < histograms.length; m++) {
      Buckets b = other.histograms[m];
      if (b != null) {
        merge(m, b.leUs, b.counts, b.histograms, b.unmerged);
      }
    }
    running.add(other.running);
    waiting.add(other.waiting);
    kvCacheUsage.add(other.kvCacheUsage);
    prefixQueries = plus(prefixQueries, other.prefixQueries);
    prefixHits = plus(prefixHits, other.prefixHits);
  }

  /** True when no engine event was added. */
  public boolean isEmpty() {
    return records == 0;
  }

  /** Forgets everything. */
  public void clear() {
    Arrays.fill(histograms, null);
    running.clear();
    waiting.clear();
    kvCacheUsage.clear();
    records = 0;
    scrapes = 0;
    failedScrapes = 0;
    resets = 0;
    prefixQueries = 0;
    prefixHits = 0;
    missing.clear();
  }

  /**
   * Adds {@code histograms} histograms of metric {@code m} with these bounds and summed counts
   * (copied when kept), and {@code unmerged} left out before.
   */
  private void merge(int m, long[] leUs, long[] counts, long histograms, long unmerged) {
    Buckets b = this.histograms[m];
    if (b == null) {
      this.histograms[m] = new Buckets(leUs.clone(), counts.clone(), histograms, unmerged);
      return;
    }
    int order = compare(leUs, b.leUs);
    if (order == 0) {
      for (int i = 0; i < counts.length; i++) {
        b.counts[i] = plus(b.counts[i], counts[i]);
      }
      b.histograms = plus(b.histograms, histograms);
      b.unmerged = plus(b.unmerged, unmerged);
    } else if (order < 0) {
      long left = plus(plus(b.unmerged, b.histograms), unmerged);
      this.histograms[m] = new Buckets(leUs.clone(), counts.clone(), histograms, left);
    } else {
      b.unmerged = plus(plus(b.unmerged, histograms), unmerged);
    }
  }

  /** Bounds in the order that decides which are merged: fewer first, then the smallest. */
  private static int compare(long[] a, long[] b) {
    return a.length != b.length ? Integer.compare(a.length, b.length) : Arrays.compare(a, b);
  }

  private void addMissing(Iterable<String> names) {
    for (String name : names) {
      missing.add(name);
      if (missing.size() > MAX_MISSING) {
        missing.pollLast();
      }
    }
  }

  /**
   * The window's engine section: the engine's percentiles as bucket intervals, its gauges, the
   * prefix-cache hit rate and, for TPOT and TTFT, the client's percentile (from the window's own
   * histograms) minus the engine's interval; null when no engine event was added.
   *
   * @param clientTpot the window's client TPOT histogram
   * @param clientTtft the window's client TTFT histogram
   */
  public EngineView view(LatencyHistogram clientTpot, LatencyHistogram clientTtft) {
    if (isEmpty()) {
      return null;
    }
    EngineView.Latency engineTpot = latency(histograms[TPOT]);
    EngineView.Latency engineTtft = latency(histograms[TTFT]);
    EngineView.Added tpot = outside(clientTpot, engineTpot);
    EngineView.Added ttft = outside(clientTtft, engineTtft);
    return new EngineView(
        scrapes,
        failedScrapes,
        new ArrayList<>(missing),
        resets,
        engineTpot,
        engineTtft,
        latency(histograms[E2E]),
        latency(histograms[QUEUE]),
        running.view(),
        waiting.view(),
        kvCacheUsage.view(),
        prefixQueries == 0 ? null : LatencyHistogram.ratio(prefixHits, prefixQueries, DECIMALS),
        tpot == null && ttft == null ? null : new EngineView.Outside(tpot, ttft));
  }

  /** The percentiles the view gives, as fractions {@code NUMERATORS[i] / DENOMINATORS[i]}. */
  private static final long[] NUMERATORS = {1, 9, 99, 999};

  private static final long[] DENOMINATORS = {2, 10, 100, 1000};

  private static EngineView.Latency latency(Buckets b) {
    if (b == null) {
      return null;
    }
    long count = b.total();
    Long unmerged = b.unmerged == 0 ? null : b.unmerged;
    if (count == 0) {
      return new EngineView.Latency(0, null, null, null, null, unmerged);
    }
    return new EngineView.Latency(
        count,
        interval(b, 0, count),
        interval(b, 1, count),
        interval(b, 2, count),
        interval(b, 3, count),
        unmerged);
  }

  /** Percentile {@code p} (an index of {@link #NUMERATORS}) of {@code b} as an interval in ms. */
  private static EngineView.Interval interval(Buckets b, int p, long count) {
    int bucket = bucketOf(b, p, count);
    Long hi = bucket < b.leUs.length ? b.leUs[bucket] : null;
    return new EngineView.Interval(
        LatencyHistogram.ms(bucket == 0 ? 0 : b.leUs[bucket - 1]),
        hi == null ? null : LatencyHistogram.ms(hi));
  }

  /**
   * The bucket holding percentile {@code p} of {@code count} observations: the first whose
   * cumulative count reaches the rank ceil(p·count), at least 1.
   */
  private static int bucketOf(Buckets b, int p, long count) {
    long rank = Math.max(1, ceilOfFraction(count, NUMERATORS[p], DENOMINATORS[p]));
    long cumulative = 0;
    for (int i = 0; i < b.counts.length; i++) {
      cumulative = plus(cumulative, b.counts[i]);
      if (cumulative >= rank) {
        return i;
      }
    }
    return b.counts.length - 1;
  }

  /** ceil(n · num / den) without overflow, for n ≥ 0 and num < den ≤ 1000. */
  static long ceilOfFraction(long n, long num, long den) {
    return n / den * num + (n % den * num + den - 1) / den;
  }

  /**
   * The client's percentile minus the engine's interval at p50, p99 and p99.9: {@code [c - hi, c -
   * lo]} (no lower end when the engine's has no upper one); null when either side has no sample.
   */
  private static EngineView.Added outside(LatencyHistogram client, EngineView.Latency engine) {
    if (engine == null || engine.count() == 0 || client.count() == 0) {
      return null;
    }
    return new EngineView.Added(
        added(client.percentileMicros(50.0), engine.p50Ms()),
        added(client.percentileMicros(99.0), engine.p99Ms()),
        added(client.percentileMicros(99.9), engine.p999Ms()));
  }

  private static EngineView.Interval added(long clientUs, EngineView.Interval engine) {
    BigDecimal client = LatencyHistogram.ms(clientUs);
    return new EngineView.Interval(
        engine.hiMs() == null ? null : client.subtract(engine.hiMs()),
        client.subtract(engine.loMs()));
  }

  /**
   * [records][scrapes][failed][resets][missing: n, names][per histogram: 0, or 1, n, bounds as
   * deltas, n + 1 counts, histograms, unmerged][per gauge: samples, sum, max + 1][prefix queries,
   * hits], varints.
   */
  public void writeTo(BinaryWriter out) {
    out.writeVarLong(records)
        .writeVarLong(scrapes)
        .writeVarLong(failedScrapes)
        .writeVarLong(resets)
        .writeVarLong(missing.size());
    for (String name : missing) {
      out.writeString(name);
    }
    for (Buckets b : histograms) {
      if (b == null) {
        out.writeByte(0);
        continue;
      }
      out.writeByte(1).writeVarLong(b.leUs.length);
      long previous = 0;
      for (long bound : b.leUs) {
        out.writeVarLong(bound - previous);
        previous = bound;
      }
      for (long c : b.counts) {
        out.writeVarLong(c);
      }
      out.writeVarLong(b.histograms).writeVarLong(b.unmerged);
    }
    for (Gauge g : List.of(running, waiting, kvCacheUsage)) {
      out.writeVarLong(g.samples).writeVarLong(g.sumMillionths).writeVarLong(g.maxMillionths + 1);
    }
    out.writeVarLong(prefixQueries).writeVarLong(prefixHits);
  }

  /** Adds what {@link #writeTo} wrote, read from {@code in}. */
  public void addFrom(BinaryReader in) {
    records = plus(records, in.readVarLong());
    scrapes = plus(scrapes, in.readVarLong());
    failedScrapes = plus(failedScrapes, in.readVarLong());
    resets = plus(resets, in.readVarLong());
    int names = in.readVarInt();
    List<String> read = new ArrayList<>(names);
    for (int i = 0; i < names; i++) {
      read.add(in.readString());
    }
    addMissing(read);
    for (int m = 0; m < histograms.length; m++) {
      if (in.readByte() == 0) {
        continue;
      }
      int n = in.readVarInt();
      long[] leUs = new long[n];
      long previous = 0;
      for (int i = 0; i < n; i++) {
        previous += in.readVarLong();
        leUs[i] = previous;
      }
      long[] counts = new long[n + 1];
      for (int i = 0; i <= n; i++) {
        counts[i] = in.readVarLong();
      }
      merge(m, leUs, counts, in.readVarLong(), in.readVarLong());
    }
    for (Gauge g : List.of(running, waiting, kvCacheUsage)) {
      g.add(in.readVarLong(), in.readVarLong(), in.readVarLong() - 1);
    }
    prefixQueries = plus(prefixQueries, in.readVarLong());
    prefixHits = plus(prefixHits, in.readVarLong());
  }

  private static long[] toArray(List<Long> values) {
    long[] array = new long[values.size()];
    for (int i = 0; i < array.length; i++) {
      array[i] = values.get(i);
    }
    return array;
  }

  /** {@code a + b} for counts, at most {@link Long#MAX_VALUE}. */
  private static long plus(long a, long b) {
    long sum = a + b;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  /** One metric's merged histograms: bounds (µs), summed counts, how many, how many left out. */
  private static final class Buckets {
    final long[] leUs;
    final long[] counts;
    long histograms;
    long unmerged;

    Buckets(long[] leUs, long[] counts, long histograms, long unmerged) {
      this.leUs = leUs;
      this.counts = counts;
      this.histograms = histograms;
      this.unmerged = unmerged;
    }

    long total() {
      long total = 0;
      for (long c : counts) {
        total = plus(total, c);
      }
      return total;
    }
  }

  /** A gauge over the window's scrapes: how many, their sum and largest value, in millionths. */
  private static final class Gauge {
    long samples;
    long sumMillionths;
    long maxMillionths = -1;

    void add(Double value) {
      if (value != null) {
        add(1, Math.round(value * GAUGE_SCALE), Math.round(value * GAUGE_SCALE));
      }
    }

    void add(Gauge other) {
      add(other.samples, other.sumMillionths, other.maxMillionths);
    }

    void add(long samples, long sumMillionths, long maxMillionths) {
      this.samples = plus(this.samples, samples);
      this.sumMillionths = plus(this.sumMillionths, sumMillionths);
      this.maxMillionths = Math.max(this.maxMillionths, maxMillionths);
    }

    void clear() {
      samples = 0;
      sumMillionths = 0;
      maxMillionths = -1;
    }

    EngineView.Gauge view() {
      if (samples == 0) {
        return null;
      }
      return new EngineView.Gauge(
          samples,
          BigDecimal.valueOf(maxMillionths, 6).setScale(DECIMALS, RoundingMode.HALF_EVEN),
          BigDecimal.valueOf(sumMillionths)
              .divide(
                  BigDecimal.valueOf(samples).multiply(BigDecimal.valueOf(GAUGE_SCALE)),
                  DECIMALS,
                  RoundingMode.HALF_EVEN));
    }
  }
}
