package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A series' Prometheus labels: {@code model} and one label per grouped label, so that {@code sum by
 * (concurrency)} works. A grouped label whose name Prometheus cannot take, or that one of the
 * exporter's own labels already uses, is exported as {@code label_<name>} with every character
 * outside [a-zA-Z0-9_] turned into {@code _}; when two grouped labels come out the same, the one
 * seen later gets {@code _2} (then {@code _3}...), the same for every series of one sink. Values
 * come from events: one longer than {@value #MAX_VALUE_CHARS} characters or holding a control
 * character is cut, cleaned and given a hash, so two values never share a label. Not thread-safe.
 */
final class PrometheusLabels {
  /** Label names the exporter itself writes. */
  static final Set<String> RESERVED =
      Set.of(
          "model",
          "le",
          "quantile",
          "percentile",
          "outcome",
          "error_class",
          "objective",
          "stat",
          "bound",
          "state",
          "agg",
          "job",
          "instance");

  /** Longest label value exported as it is. */
  static final int MAX_VALUE_CHARS = 128;

  private static final int KEPT_CHARS = 100;
  private static final Pattern VALID = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private final Map<String, String> names = new HashMap<>();
  private final Set<String> used = new HashSet<>();

  Labels of(String model, Map<String, String> grouped) {
    List<String> labelNames = new ArrayList<>();
    List<String> values = new ArrayList<>();
    labelNames.add("model");
    values.add(value(model));
    for (Map.Entry<String, String> label : grouped.entrySet()) {
      labelNames.add(name(label.getKey()));
      values.add(value(label.getValue()));
    }
    return Labels.of(labelNames, values);
  }

  /** The Prometheus label name of the grouped label {@code name}, unique among this sink's. */
  String name(String name) {
    return names.computeIfAbsent(
        name,
        grouped -> {
          String base = sanitised(grouped);
          String unique = base;
          for (int n = 2; !used.add(unique); n++) {
            unique = base + "_" + n;
          }
          return unique;
        });
  }

  private static String sanitised(String name) {
    if (VALID.matcher(name).matches() && !RESERVED.contains(name) && !name.startsWith("__")) {
      return name;
    }
    return "label_" + name.replaceAll("[^a-zA-Z0-9_]", "_");
  }

  /**
   * {@code value} as a label value: itself when short and printable, else its first {@value
   * #KEPT_CHARS} characters (control characters and broken surrogates as {@code _}), {@code ~} and
   * 8 hex digits of its hash.
   */
  static String value(String value) {
    if (value == null) {
      return "";
    }
    if (value.length() <= MAX_VALUE_CHARS && isClean(value)) {
      return value;
    }
    StringBuilder kept = new StringBuilder();
    for (int i = 0; i < value.length() && kept.length() < KEPT_CHARS; i++) {
      char c = value.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < value.length()
              && Character.isLowSurrogate(value.charAt(i + 1));
      if (pair) {
        kept.append(c).append(value.charAt(++i));
      } else {
        kept.append(Character.isISOControl(c) || Character.isSurrogate(c) ? '_' : c);
      }
    }
    return kept + "~" + String.format("%08x", value.hashCode());
  }

  private static boolean isClean(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isISOControl(c)) {
        return false;
      }
      if (Character.isHighSurrogate(c)
          && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return false;
      }
    }
    return true;
  }
}
