package io.tpotstream.common.slo;

import io.tpotstream.common.summary.WindowStats;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code --slo} and {@code --goodput} ask for: objectives on window (or whole-run) statistics,
 * and per-request goodput limits. Evaluated by the aggregator per window, by {@code stats}, and on
 * the whole run for the exit status.
 */
public record SloSpec(List<Objective> objectives, GoodputLimits goodput) {
  /** Neither objectives nor goodput limits. */
  public static final SloSpec NONE = new SloSpec(List.of(), GoodputLimits.NONE);

  public SloSpec {
    objectives = List.copyOf(objectives);
    goodput = goodput == null ? GoodputLimits.NONE : goodput;
  }

  /**
   * Reads {@code --slo} (e.g. {@code tpot_p99=50ms,ttft_p99=1s,error_rate=1%,goodput=90%}) and
   * {@code --goodput} (e.g. {@code ttft=1s,request_tpot=40ms}); either may be null.
   *
   * @throws IllegalArgumentException naming the item that cannot be read
   */
  public static SloSpec parse(String slo, String goodput) {
    List<Objective> objectives = new ArrayList<>();
    if (slo != null) {
      for (String item : slo.split(",")) {
        if (!item.isBlank()) {
          Objective o = Objective.parse(item.trim());
          if (objectives.stream().anyMatch(x -> x.name().equals(o.name()))) {
            throw new IllegalArgumentException("--slo: '" + o.name() + "' is given twice");
          }
          objectives.add(o);
        }
      }
    }
    GoodputLimits limits = GoodputLimits.parse(goodput);
    boolean wantsGoodput = objectives.stream().anyMatch(o -> o.metric() == SloMetric.GOODPUT);
    if (wantsGoodput && limits.isEmpty()) {
      throw new IllegalArgumentException(
          "--slo goodput needs the per-request limits that define a good request: add e.g."
              + " --goodput ttft=1s,request_tpot=40ms");
    }
    return new SloSpec(objectives, limits);
  }

  public boolean isEmpty() {
    return objectives.isEmpty() && goodput.isEmpty();
  }

  /** The {@code --slo} text that {@link #parse} reads back (empty when none). */
  public String sloText() {
    StringBuilder t = new StringBuilder();
    for (Objective o : objectives) {
      if (!t.isEmpty()) {
        t.append(',');
      }
      t.append(o.name()).append('=');
      if (o.metric().latency()) {
        t.append(o.limit().stripTrailingZeros().toPlainString()).append("ms");
      } else {
        t.append(o.limit().toPlainString());
      }
    }
    return t.toString();
  }

  /** The {@code --goodput} text that {@link #parse} reads back (empty when none). */
  public String goodputText() {
    return goodput.text();
  }

  /**
   * Evaluates every objective on {@code stats}; null when this spec is empty (summaries then have
   * no {@code slo} section).
   */
  public SloResult evaluate(WindowStats stats) {
    if (isEmpty()) {
      return null;
    }
    List<ObjectiveResult> results = new ArrayList<>();
    boolean met = true;
    for (Objective o : objectives) {
      ObjectiveResult r = ObjectiveResult.of(o, o.measure(stats));
      met &= r.met();
      results.add(r);
    }
    long finished = stats.completed() + stats.failed() + stats.abandoned();
    return new SloResult(
        results,
        goodput.isEmpty() || finished == 0
            ? null
            : io.tpotstream.common.stats.LatencyHistogram.ratio(stats.goodRequests(), finished, 4),
        goodput.isEmpty() ? null : stats.goodRequests(),
        met);
  }

  /** The objective called {@code name}, or null. */
  public Objective objective(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return objectives.stream().filter(o -> o.name().equals(n)).findFirst().orElse(null);
  }
}
