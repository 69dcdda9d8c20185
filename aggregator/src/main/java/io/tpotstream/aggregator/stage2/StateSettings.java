package io.tpotstream.aggregator.stage2;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.Durations;
import java.util.TreeSet;

/**
 * The settings that shape an application id's state, as one canonical text that both stages keep in
 * their stores: {@code --window 10s --grace 0s --group-by (none) --slo (none) --request-timeout 10m
 * --producer-timeout 1m --client-lag-threshold 1ms --max-clock-skew 5m}, with the group-by labels
 * and the SLO objectives sorted (their order changes nothing) and {@code --goodput} added when it
 * is set. Equal texts mean the stored windows can go on with these settings: a recount with other
 * timeouts would close, abandon and trust other events than the live run did.
 */
public final class StateSettings {
  private static final String NONE = "(none)";
  private static final String TIMEOUTS = " --request-timeout ";

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
    t.append(TIMEOUTS).append(Durations.format(settings.requestTimeout()));
    t.append(" --producer-timeout ").append(Durations.format(settings.producerTimeout()));
    t.append(" --client-lag-threshold ").append(Durations.format(settings.clientLagThreshold()));
    t.append(" --max-clock-skew ").append(Durations.format(settings.maxClockSkew()));
    return t.toString();
  }

  /**
   * True when a state stored with settings {@code stored} can go on with {@code now}: the same
   * text, or a store of an older tpot that kept no timeouts and agrees on the rest.
   */
  public static boolean compatible(String stored, String now) {
    if (stored.equals(now)) {
      return true;
    }
    int timeouts = now.indexOf(TIMEOUTS);
    return !stored.contains(TIMEOUTS) && timeouts >= 0 && now.substring(0, timeouts).equals(stored);
  }
}
