package io.tpotstream.sink.report;

import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.file.JsonlFile;
import io.tpotstream.sink.record.EngineRun;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a report shows, built one window summary at a time: per series, the points the charts plot
 * and the whole run's statistics, which come from merging the windows' encoded histograms with the
 * statistics core (never from averaging percentiles), and the engine's view over the run ({@link
 * EngineRun}). Each (series, window) counts once. Not thread-safe.
 */
public final class ReportModel {
  private final SortedMap<String, SeriesRun> series = new TreeMap<>();
  private final int maxPointsPerSeries;

  /** A model that keeps every window's point. */
  public ReportModel() {
    this(Integer.MAX_VALUE);
  }

  /**
   * A model that keeps the points of each series' latest {@code maxPointsPerSeries} windows (the
   * whole-run statistics still merge every window added), so that memory and drawing stay bounded
   * however long it lives.
   */
  public ReportModel(int maxPointsPerSeries) {
    this.maxPointsPerSeries = maxPointsPerSeries;
  }

  /** A model of every summary in a JSONL file written by the sink. */
  public static ReportModel fromJsonl(Path jsonl) throws NoSuchFileException {
    if (!Files.isRegularFile(jsonl)) {
      throw new NoSuchFileException(jsonl.toString());
    }
    ReportModel model = new ReportModel();
    JsonlFile.read(jsonl, model::add);
    return model;
  }

  /**
   * Adds one window summary.
   *
   * @return false when its (series, window) was already added (among the points kept)
   */
  public boolean add(WindowSummary summary) {
    SeriesRun run = series.computeIfAbsent(summary.series(), name -> new SeriesRun(summary));
    if (!run.add(summary)) {
      return false;
    }
    if (run.points.size() > maxPointsPerSeries) {
      run.points.pollFirstEntry();
    }
    return true;
  }

  /** The series, sorted. */
  public List<String> seriesNames() {
    return new ArrayList<>(series.keySet());
  }

  /** Windows whose points are kept, over all series. */
  public int windows() {
    return series.values().stream().mapToInt(run -> run.points.size()).sum();
  }

  public boolean isEmpty() {
    return series.isEmpty();
  }

  /**
   * The whole run of {@code seriesName} as one summary: every window merged, from the first
   * window's start to the last window's end.
   */
  public WindowSummary wholeRun(String seriesName) {
    SeriesRun run = series.get(seriesName);
    return run.merged.toSummary(seriesName, run.model, run.labels, run.firstStartMs, run.lastEndMs);
  }

  /**
   * As {@link #wholeRun(String)}, with {@code slo} evaluated on the merged windows (goodput from
   * the merged good and finished requests).
   */
  public WindowSummary wholeRun(String seriesName, SloSpec slo) {
    SeriesRun run = series.get(seriesName);
    return run.merged.toSummary(
        seriesName,
        run.model,
        run.labels,
        run.firstStartMs,
        run.lastEndMs,
        WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US,
        slo);
  }

  /**
   * The engine's view over the whole run, by series, of the series whose windows carried an engine
   * section (the producer scraped an inference engine), sorted.
   */
  public SortedMap<String, EngineRun> engines() {
    SortedMap<String, EngineRun> engines = new TreeMap<>();
    series.forEach(
        (name, run) -> {
          if (run.engine.windows() > 0) {
            engines.put(name, run.engine);
          }
        });
    return engines;
  }

  /**
   * The windows of {@code seriesName} the charts plot, by window end: without the warm-up's, that
   * is without a window that only counts warm-up requests and without the windows that measured
   * nothing before the first one that did (a warm-up request's later events land there).
   */
  List<WindowPoint> points(String seriesName) {
    List<WindowPoint> plotted = new ArrayList<>();
    for (WindowPoint p : series.get(seriesName).points.values()) {
      if ((plotted.isEmpty() && !p.measured()) || p.warmup()) {
        continue;
      }
      plotted.add(p);
    }
    return plotted;
  }

  private static final class SeriesRun {
    final String model;
    final SortedMap<String, String> labels;
    final WindowStats merged = new WindowStats();
    final EngineRun engine = new EngineRun();
    final TreeMap<Long, WindowPoint> points = new TreeMap<>();
    long firstStartMs = Long.MAX_VALUE;
    long lastEndMs = Long.MIN_VALUE;

    SeriesRun(WindowSummary first) {
      this.model = first.model();
      this.labels = first.labels();
    }

    boolean add(WindowSummary s) {
      if (points.containsKey(s.windowEndMs())) {
        return false;
      }
      LatencySummary tpot = s.tpot() == null ? LatencySummary.EMPTY : s.tpot();
      LatencySummary ttft = s.ttft() == null ? LatencySummary.EMPTY : s.ttft();
      points.put(
          s.windowEndMs(),
          new WindowPoint(
              s.windowEndMs(),
              tpot.p50Ms(),
              tpot.p99Ms(),
              tpot.p999Ms(),
              ttft.p50Ms(),
              ttft.p99Ms(),
              s.requests() == null ? null : s.requests().errorRate(),
              s.tokensPerSecond(),
              measured(s),
              s.warmupRequests(),
              s.engine()));
      merged.add(WindowStats.fromSummary(s));
      if (s.engine() != null) {
        engine.add(s.engine());
      }
      firstStartMs = Math.min(firstStartMs, s.windowStartMs());
      lastEndMs = Math.max(lastEndMs, s.windowEndMs());
      return true;
    }
  }

  /**
   * Whether {@code s} measured anything: a TPOT or TTFT sample, or a request that started or ended.
   * A window that did not, and counts warm-up requests, is the warm-up's: left out of the charts
   * here, and marked as such in {@code tpot run}'s live view.
   */
  public static boolean measured(WindowSummary s) {
    RequestCounts r = s.requests();
    boolean requests = r != null && r.started() + r.completed() + r.failed() + r.abandoned() > 0;
    return (s.tpot() != null && s.tpot().count() > 0)
        || (s.ttft() != null && s.ttft().count() > 0)
        || requests;
  }
}
