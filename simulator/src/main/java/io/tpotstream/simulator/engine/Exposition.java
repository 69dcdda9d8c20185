package io.tpotstream.simulator.engine;

import java.math.BigDecimal;

/**
 * The pieces of Prometheus' text exposition format 0.0.4 that {@link EngineMetrics} writes: a
 * family's {@code # HELP} and {@code # TYPE} lines, escaped label values and numbers as vLLM's
 * Python client writes them (counts as {@code 3.0}), always in plain decimals.
 */
final class Exposition {
  /** The content type of the format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private Exposition() {}

  /** A metric family's {@code # HELP} and {@code # TYPE} lines. */
  static void family(StringBuilder out, String name, String type, String help) {
    out.append("# HELP ").append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  /** {@code name="value"}, the value escaped as the format asks (backslash, quote, line feed). */
  static String label(String name, String value) {
    StringBuilder out = new StringBuilder(name.length() + value.length() + 4);
    out.append(name).append("=\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\\' -> out.append("\\\\");
        case '"' -> out.append("\\\"");
        case '\n' -> out.append("\\n");
        default -> out.append(c);
      }
    }
    return out.append('"').toString();
  }

  /** A count, as a float: {@code 3.0}. */
  static StringBuilder count(StringBuilder out, long count) {
    return out.append(count).append(".0");
  }

  /** A duration given in ns, in seconds, exact: {@code 0.0205}, {@code 0.0}. */
  static StringBuilder seconds(StringBuilder out, long ns) {
    return decimal(out, BigDecimal.valueOf(ns, 9));
  }

  /** A finite ratio in plain decimals: {@code 0.25}, {@code 0.0}. */
  static StringBuilder ratio(StringBuilder out, double ratio) {
    return decimal(out, BigDecimal.valueOf(ratio));
  }

  private static StringBuilder decimal(StringBuilder out, BigDecimal value) {
    String text = value.stripTrailingZeros().toPlainString();
    return out.append(text).append(text.contains(".") ? "" : ".0");
  }
}
