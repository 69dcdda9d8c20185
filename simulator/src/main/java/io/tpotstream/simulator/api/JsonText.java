package io.tpotstream.simulator.api;

import com.fasterxml.jackson.core.io.JsonStringEncoder;

/**
 * Appends text as the inside of a JSON string (quotes, backslashes, control characters escaped).
 */
final class JsonText {
  private static final JsonStringEncoder ENCODER = JsonStringEncoder.getInstance();

  private JsonText() {}

  static StringBuilder append(StringBuilder out, String text) {
    ENCODER.quoteAsString(text, out);
    return out;
  }

  static String quoted(String text) {
    return append(new StringBuilder(text.length() + 8), text).toString();
  }
}
