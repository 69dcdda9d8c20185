package io.tpotstream.common;

import java.util.Map;
import java.util.SortedMap;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * The series string (docs/design.md, "series"): {@code model} or {@code model{k=v,...}}, labels
 * sorted.
 */
public final class Series {
  private Series() {}

  /** Formats the series of {@code model} with {@code labels} (may be null or empty). */
  public static String name(String model, Map<String, String> labels) {
    if (labels == null || labels.isEmpty()) {
      return model;
    }
    StringJoiner joined = new StringJoiner(",", model + "{", "}");
    new TreeMap<>(labels).forEach((k, v) -> joined.add(k + "=" + v));
    return joined.toString();
  }

  /**
   * Keeps only the labels named in {@code groupBy}, sorted; labels the event does not carry are
   * left out.
   */
  public static SortedMap<String, String> select(
      Map<String, String> labels, Iterable<String> groupBy) {
    SortedMap<String, String> selected = new TreeMap<>();
    if (labels == null) {
      return selected;
    }
    for (String name : groupBy) {
      String value = labels.get(name);
      if (value != null) {
        selected.put(name, value);
      }
    }
    return selected;
  }
}
