package io.tpotstream.sink.prometheus;

import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A series' Prometheus labels: {@code model} and one label per grouped label, so that {@code sum by
 * (concurrency)} works. A grouped label whose name Prometheus cannot take, or that one of the
 * exporter's own labels already uses, is exported as {@code label_<name>} with every character
 * outside [a-zA-Z0-9_] turned into {@code _}.
 */
final class PrometheusLabels {
  /** Label names the exporter itself writes. */
  static final Set<String> RESERVED =
      Set.of("model", "le", "quantile", "percentile", "outcome", "error_class", "job", "instance");

  private static final Pattern VALID = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private PrometheusLabels() {}

  static Labels of(String model, Map<String, String> grouped) {
    List<String> names = new ArrayList<>();
    List<String> values = new ArrayList<>();
    names.add("model");
    values.add(model);
    for (Map.Entry<String, String> label : grouped.entrySet()) {
      String name = name(label.getKey());
      if (!names.contains(name)) {
        names.add(name);
        values.add(label.getValue());
      }
    }
    return Labels.of(names, values);
  }

  /** The Prometheus label name of the grouped label {@code name}. */
  static String name(String name) {
    if (VALID.matcher(name).matches() && !RESERVED.contains(name) && !name.startsWith("__")) {
      return name;
    }
    return "label_" + name.replaceAll("[^a-zA-Z0-9_]", "_");
  }
}
