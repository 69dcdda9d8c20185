package io.tpotstream.producer.traffic;

import io.tpotstream.common.Stages;
import io.tpotstream.producer.config.ConfigException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Stages run one after another in one run, each with one load: {@code concurrency=1,4,16}
 * (closed-loop workers, or the in-flight cap of an open loop) or {@code rate=1,2,4} (open-loop
 * requests per second). Every request of a stage carries the label {@code stage} ({@code
 * concurrency-4}, {@code rate-2}), and a concurrency stage also its {@code concurrency} label, so
 * that {@code --group-by stage} splits the summaries per stage.
 */
public record Sweep(String dimension, List<Stage> stages) {
  /** The label every request of a stage carries. */
  public static final String LABEL = Stages.LABEL;

  public static final String CONCURRENCY = "concurrency";
  public static final String RATE = "rate";

  /**
   * One stage.
   *
   * @param name the {@code stage} label's value
   * @param load the concurrency or the rate, as a number for charts
   * @param concurrency the concurrency of this stage, or null to keep the config's
   * @param rate the rate of this stage, or null to keep the config's
   */
  public record Stage(String name, BigDecimal load, Integer concurrency, Double rate) {}

  /** Reads {@code concurrency=1,4,16} or {@code rate=0.5,1,2}. */
  public static Sweep parse(String key, String text) {
    String t = text.trim();
    int eq = t.indexOf('=');
    String dimension = eq < 0 ? "" : t.substring(0, eq).trim().toLowerCase(Locale.ROOT);
    if (!dimension.equals(CONCURRENCY) && !dimension.equals(RATE)) {
      throw new ConfigException(
          key
              + ": '"
              + text
              + "' is not concurrency=N,N,... or rate=R,R,... (e.g. concurrency=1,4,16)");
    }
    List<Stage> stages = new ArrayList<>();
    for (String item : t.substring(eq + 1).split(",")) {
      String v = item.trim();
      if (v.isEmpty()) {
        continue;
      }
      BigDecimal load;
      try {
        load = new BigDecimal(v).stripTrailingZeros();
      } catch (NumberFormatException e) {
        throw new ConfigException(key + ": '" + v + "' is not a number");
      }
      if (load.signum() <= 0) {
        throw new ConfigException(key + ": " + dimension + " must be more than 0, got " + v);
      }
      String name = Stages.name(dimension, load);
      if (stages.stream().anyMatch(s -> s.name().equals(name))) {
        throw new ConfigException(key + ": " + dimension + " " + v + " is given twice");
      }
      if (dimension.equals(CONCURRENCY)) {
        int c;
        try {
          c = load.intValueExact();
        } catch (ArithmeticException e) {
          throw new ConfigException(key + ": concurrency must be a whole number, got " + v);
        }
        stages.add(new Stage(name, load, c, null));
      } else {
        stages.add(new Stage(name, load, null, load.doubleValue()));
      }
    }
    if (stages.isEmpty()) {
      throw new ConfigException(key + ": no stage in '" + text + "'");
    }
    return new Sweep(dimension, List.copyOf(stages));
  }

  /** The text {@link #parse} reads back. */
  public String text() {
    StringBuilder b = new StringBuilder(dimension).append('=');
    for (int i = 0; i < stages.size(); i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append(stages.get(i).load().toPlainString());
    }
    return b.toString();
  }
}
