package io.tpotstream.sink.report;

import io.tpotstream.common.Series;
import io.tpotstream.common.Stages;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The knee of a sweep, what {@code knee.png} and the page's knee chart plot: per series without its
 * {@code stage} label (and {@code concurrency}), the whole stage's summary by the stage's load.
 *
 * @param dimension the load's kind, e.g. {@code concurrency} or {@code rate}
 * @param lines series name without the stage → load → the whole stage
 */
record Knee(String dimension, SortedMap<String, SortedMap<BigDecimal, WindowSummary>> lines) {

  /** The knee of {@code model}; null when no series carries a {@code stage} label with a load. */
  static Knee of(ReportModel model) {
    SortedMap<String, SortedMap<BigDecimal, WindowSummary>> lines = new TreeMap<>();
    String dimension = null;
    for (String name : model.seriesNames()) {
      WindowSummary run = model.wholeRun(name);
      String stage = run.labels().get(Stages.LABEL);
      BigDecimal load = Stages.loadOf(stage);
      if (load == null) {
        continue;
      }
      dimension = dimension == null ? Stages.dimensionOf(stage) : dimension;
      SortedMap<String, String> others = new TreeMap<>(run.labels());
      others.remove(Stages.LABEL);
      others.remove("concurrency");
      lines.computeIfAbsent(Series.name(run.model(), others), k -> new TreeMap<>()).put(load, run);
    }
    return lines.isEmpty() ? null : new Knee(dimension, lines);
  }

  /** The x axis' label, e.g. "load: concurrency of the stage". */
  String xLabel() {
    return "rate".equals(dimension)
        ? "load: rate (requests/s) of the stage"
        : "load: " + dimension + " of the stage";
  }
}
