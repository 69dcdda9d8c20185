package io.tpotstream.simulator.truth;

import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.PromptCache;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The end-of-run summary of a {@link TruthReport}: what was sent per model, and how on time. */
public final class TruthSummary {
  private static final String ROW = "%-14s %8s %8s  %-22s %-22s %s";

  private TruthSummary() {}

  /**
   * A table of requests, chunks, actual and intended gap p50 / p99 and pacing error p50 / p99 / max
   * per model (ms), a line for all models, a line per model served with the prefix cache (its hit
   * rate), and the pacing warning when its p99 is above the limit.
   */
  public static List<String> lines(TruthReport report) {
    List<String> lines = new ArrayList<>();
    lines.add("What the simulator sent (seed " + report.seed() + "), in ms:");
    lines.add(
        String.format(
            ROW,
            "model",
            "requests",
            "chunks",
            "gap p50 / p99",
            "intended p50 / p99",
            "pacing error p50 / p99 / max"));
    for (Map.Entry<String, ModelTruth> entry : report.models().entrySet()) {
      ModelTruth model = entry.getValue();
      lines.add(
          String.format(
              ROW,
              entry.getKey(),
              model.requests(),
              model.chunks(),
              p50p99(model.gap()),
              p50p99(model.intendedGap()),
              p50p99max(model.pacingError())));
    }
    Pacing pacing = report.pacing();
    lines.add(
        String.format(
            ROW,
            "all models",
            "",
            pacing.chunks(),
            "",
            "",
            text(pacing.p50Ms()) + " / " + text(pacing.p99Ms()) + " / " + text(pacing.maxMs())));
    for (Map.Entry<String, ModelTruth> entry : report.models().entrySet()) {
      PromptCache cache = entry.getValue().prefixCache();
      if (cache != null) {
        lines.add(
            String.format(
                Locale.ROOT,
                "prefix cache, %s: %s of %,d prompt tokens held (%,d) over %,d requests",
                entry.getKey(),
                cache.hitRate() == null
                    ? "-"
                    : cache.hitRate().movePointRight(2).stripTrailingZeros().toPlainString() + "%",
                cache.promptTokens(),
                cache.cachedTokens(),
                cache.requests()));
      }
    }
    pacing.warning().ifPresent(lines::add);
    return lines;
  }

  private static String p50p99(LatencySummary summary) {
    return text(summary.p50Ms()) + " / " + text(summary.p99Ms());
  }

  private static String p50p99max(LatencySummary summary) {
    return p50p99(summary) + " / " + text(summary.maxMs());
  }

  private static String text(BigDecimal ms) {
    return ms == null ? "-" : ms.toPlainString();
  }
}
