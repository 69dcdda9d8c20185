package io.tpotstream.aggregator.stage2;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.Durations;
import java.util.TreeSet;

/**
 * The settings that shape an application id's state, as one canonical text that stage 2 keeps in
 * its store: {@code --window 10s --grace 0s --group-by (none) --slo (none)}, with the group-by
 * labels and the SLO objectives sorted (their order changes nothing) and {@code --goodput} added
 * when it is set. Equal texts mean the stored windows can go on with these settings.
 */
public final class StateSettings {
  private static final String NONE = "(none)";

  private StateSettings() {}

  /** The canonical text of {@code settings}' window, grace, group-by and SLO. */
  public static String of(StageSettings settings) {
    StringBuilder t = new StringBuilder();
    t.append("--window ").append(Durations.format(settings.windowSize()));
    t.append(" --grace ").append(Durations.format(settings.grace()));
    TreeSet<String> groupBy = new TreeSet<>(settings.groupBy());
    t.append(" --group-by ").append(groupBy.isEmpty() ? NONE : String.join(",", groupBy));
    TreeSet<String> objectives = new TreeSet<>();
    String slo = settings.slo() == null ? "" : settings.slo().sloText();
    for (String item : slo.split(",")) {
      if (!item.isEmpty()) {
        objectives.add(item);
      }
    }
    t.append(" --slo ").append(objectives.isEmpty() ? NONE : String.join(",", objectives));
    String goodput = settings.slo() == null ? "" : settings.slo().goodputText();
    if (!goodput.isEmpty()) {
      t.append(" --goodput ").append(goodput);
    }
    return t.toString();
  }
}
