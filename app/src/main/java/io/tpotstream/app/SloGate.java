package io.tpotstream.app;

import io.tpotstream.common.slo.SloResult;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.slo.SloVerdict;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.report.ReportModel;
import java.util.LinkedHashMap;
import java.util.Map;

/** The whole-run SLO verdict of window summaries: each series' windows merged, then judged. */
public final class SloGate {
  private SloGate() {}

  /** The verdict over {@code summaries}, per series in sorted order. */
  public static SloVerdict verdict(SloSpec slo, Iterable<WindowSummary> summaries) {
    ReportModel model = new ReportModel();
    summaries.forEach(model::add);
    return verdict(slo, model);
  }

  public static SloVerdict verdict(SloSpec slo, ReportModel model) {
    Map<String, SloResult> wholeRun = new LinkedHashMap<>();
    for (String series : model.seriesNames()) {
      WindowSummary run = model.wholeRun(series, slo);
      if (run.requests().completed() + run.requests().failed() + run.requests().abandoned() > 0) {
        wholeRun.put(series, run.slo());
      }
    }
    return SloVerdict.of(slo, wholeRun);
  }
}
