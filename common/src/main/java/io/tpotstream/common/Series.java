package io.tpotstream.common;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The series string (docs/design.md, "series"): {@code model} or {@code model{k=v,...}}, labels
 * sorted. The characters that carry structure are escaped with a backslash ({@code \} and {@code
 * {} in the model; {@code \ { } , =} in label names and values), so that distinct (model, labels)
 * always give distinct strings; a name without those characters is written as it is.
 */
public final class Series {
  private static final String MODEL_SPECIAL = "\\{";
  private static final String LABEL_SPECIAL = "\\{},=";

  private Series() {}

  /** Formats the series of {@code model} with {@code labels} (may be null or empty). */
  public static String name(String model, Map<String, String> labels) {
    if (model == null && (labels == null || labels.isEmpty())) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    escape(String.valueOf(model), MODEL_SPECIAL, out);
    if (labels == null || labels.isEmpty()) {
      return out.toString();
    }
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> label : new TreeMap<>(labels).entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      escape(label.getKey(), LABEL_SPECIAL, out);
      out.append('=');
      escape(label.getValue(), LABEL_SPECIAL, out);
    }
    return out.append('}').toString();
  }

  private static void escape(String text, String special, StringBuilder out) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (special.indexOf(c) >= 0) {
        out.append('\\');
      }
      out.append(c);
    }
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
