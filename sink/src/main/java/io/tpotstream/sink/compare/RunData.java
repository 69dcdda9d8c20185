package io.tpotstream.sink.compare;

import io.tpotstream.common.stats.BucketCounts;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One side of a comparison, per series: the windows (their histograms, from a summaries JSONL or an
 * export), or only the windows' percentiles (a summaries CSV, which carries no histograms), and,
 * from an export, every request's own TPOT samples and TTFT. Not thread-safe.
 */
public final class RunData {
  /** What the side was read from. */
  public enum Kind {
    SUMMARIES("summaries"),
    CSV("summaries CSV (no histograms)"),
    EXPORT("export");

    private final String text;

    Kind(String text) {
      this.text = text;
    }

    public String text() {
      return text;
    }
  }

  private final String source;
  private final Kind kind;
  private final SortedMap<String, SeriesData> series = new TreeMap<>();
  private int windows;
  private long requests;

  public RunData(String source, Kind kind) {
    this.source = source;
    this.kind = kind;
  }

  /** Adds one window summary (each (series, window) once; a repeat is ignored). */
  public void addWindow(WindowSummary s) {
    SeriesData d = data(s.series());
    if (!d.windowEnds.add(s.windowEndMs())) {
      return;
    }
    windows++;
    WindowStats stats = WindowStats.fromSummary(s);
    d.merged.add(stats);
    d.tpotWindows.add(BucketCounts.of(stats.tpot));
    d.ttftWindows.add(BucketCounts.of(stats.ttft));
    Map<String, BigDecimal> values = new HashMap<>();
    for (CompareStat stat : CompareStat.ALL) {
      LatencySummary summary = stat.metric().equals(CompareStat.TPOT) ? s.tpot() : s.ttft();
      values.put(stat.csvColumn(), summary == null ? null : stat.of(summary));
    }
    d.windowValues.add(values);
  }

  /** Adds one row of a summaries CSV (column name → cell). */
  public void addCsvRow(Map<String, String> row) {
    String name = row.get("series");
    String ts = row.get("ts");
    if (name == null || name.isEmpty() || ts == null) {
      throw new IllegalArgumentException(
          source + " has a row without series or ts: is it a tpot summaries CSV?");
    }
    SeriesData d = data(name);
    if (!d.windowEnds.add(Long.parseLong(ts))) {
      return;
    }
    windows++;
    Map<String, BigDecimal> values = new HashMap<>();
    for (CompareStat stat : CompareStat.ALL) {
      String cell = row.get(stat.csvColumn());
      values.put(stat.csvColumn(), cell == null || cell.isEmpty() ? null : new BigDecimal(cell));
    }
    d.windowValues.add(values);
  }

  /** Adds one request of an export: its TPOT samples and its TTFT (µs, -1 when none). */
  public void addRequest(String seriesName, BucketCounts gaps, long ttftMicros) {
    SeriesData d = data(seriesName);
    requests++;
    d.tpotRequests.add(gaps);
    d.ttftRequests.add(ttftMicros < 0 ? new BucketCounts() : BucketCounts.ofOne(ttftMicros));
  }

  public String source() {
    return source;
  }

  public Kind kind() {
    return kind;
  }

  public int windows() {
    return windows;
  }

  /** Requests read (exports only; 0 otherwise). */
  public long requests() {
    return requests;
  }

  public Set<String> seriesNames() {
    return series.keySet();
  }

  SeriesData series(String name) {
    return series.get(name);
  }

  private SeriesData data(String name) {
    return series.computeIfAbsent(name, n -> new SeriesData());
  }

  /** What one series holds. */
  static final class SeriesData {
    final WindowStats merged = new WindowStats();
    final java.util.HashSet<Long> windowEnds = new java.util.HashSet<>();
    final List<BucketCounts> tpotWindows = new ArrayList<>();
    final List<BucketCounts> ttftWindows = new ArrayList<>();
    final List<BucketCounts> tpotRequests = new ArrayList<>();
    final List<BucketCounts> ttftRequests = new ArrayList<>();
    final List<Map<String, BigDecimal>> windowValues = new ArrayList<>();

    /** The merged histogram of a metric. */
    LatencyHistogram merged(String metric) {
      return metric.equals(CompareStat.TPOT) ? merged.tpot : merged.ttft;
    }

    List<BucketCounts> windowUnits(String metric) {
      return metric.equals(CompareStat.TPOT) ? tpotWindows : ttftWindows;
    }

    List<BucketCounts> requestUnits(String metric) {
      return metric.equals(CompareStat.TPOT) ? tpotRequests : ttftRequests;
    }

    /**
     * Each window's value of {@code stat} (in µs, one sample each), windows without one left out.
     */
    List<BucketCounts> windowValueUnits(CompareStat stat) {
      List<BucketCounts> units = new ArrayList<>();
      for (Map<String, BigDecimal> w : windowValues) {
        BigDecimal ms = w.get(stat.csvColumn());
        if (ms != null) {
          units.add(BucketCounts.ofOne(ms.movePointRight(3).longValue()));
        }
      }
      return units;
    }
  }
}
