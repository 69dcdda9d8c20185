package io.tpotstream.sink.record;

import io.tpotstream.common.engine.EngineView;
import java.math.BigDecimal;

/**
 * The inference engine's view over a whole run of one series, from the engine sections of its
 * windows: the windows that had one, scrapes and failed scrapes added up, and the time added
 * outside the engine at TPOT and TTFT p99 as the envelope of the windows' intervals (the lowest
 * lower bound to the highest upper bound; an end is unbounded when any window's is). The summaries
 * do not carry the engine's histograms, so the run's own percentile interval cannot be built from
 * them: the envelope is all a run can say, every window's interval lies inside it. Also counted:
 * the windows whose TPOT p99 lower bound is above 0, where time outside the engine is proven. Not
 * thread-safe.
 */
public final class EngineRun {
  private long windows;
  private long scrapes;
  private long failedScrapes;
  private long tpotOutsideProvenWindows;
  private EngineView.Interval tpotP99Outside;
  private EngineView.Interval ttftP99Outside;

  /** Adds one window's engine section. */
  public void add(EngineView engine) {
    windows++;
    scrapes += engine.scrapes();
    failedScrapes += engine.failedScrapes();
    EngineView.Outside outside = engine.outside();
    EngineView.Interval tpot =
        outside == null || outside.tpot() == null ? null : outside.tpot().p99Ms();
    EngineView.Interval ttft =
        outside == null || outside.ttft() == null ? null : outside.ttft().p99Ms();
    if (tpot != null && tpot.loMs() != null && tpot.loMs().signum() > 0) {
      tpotOutsideProvenWindows++;
    }
    tpotP99Outside = envelope(tpotP99Outside, tpot);
    ttftP99Outside = envelope(ttftP99Outside, ttft);
  }

  /** Windows with an engine section. */
  public long windows() {
    return windows;
  }

  /** Successful scrapes over those windows. */
  public long scrapes() {
    return scrapes;
  }

  /** Failed scrapes over those windows. */
  public long failedScrapes() {
    return failedScrapes;
  }

  /** Windows whose time added outside the engine at TPOT p99 has a lower bound above 0 ms. */
  public long tpotOutsideProvenWindows() {
    return tpotOutsideProvenWindows;
  }

  /** The envelope of the windows' TPOT p99 time outside the engine, ms; null when none had one. */
  public EngineView.Interval tpotP99Outside() {
    return tpotP99Outside;
  }

  /** The envelope of the windows' TTFT p99 time outside the engine, ms; null when none had one. */
  public EngineView.Interval ttftP99Outside() {
    return ttftP99Outside;
  }

  private static EngineView.Interval envelope(EngineView.Interval run, EngineView.Interval window) {
    if (window == null) {
      return run;
    }
    if (run == null) {
      return window;
    }
    BigDecimal lo =
        run.loMs() == null || window.loMs() == null ? null : run.loMs().min(window.loMs());
    BigDecimal hi =
        run.hiMs() == null || window.hiMs() == null ? null : run.hiMs().max(window.hiMs());
    return new EngineView.Interval(lo, hi);
  }
}
