package io.tpotstream.bench.history;

import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.List;

/** A line with some values cut out, written again with others in their place. */
record LineTemplate(List<String> pieces) {
  /**
   * Cuts {@code values} out of {@code line}, in their order in the line.
   *
   * @throws IllegalArgumentException when a value is not in the line exactly once
   */
  static LineTemplate of(String line, String... values) {
    List<String> pieces = new ArrayList<>();
    int from = 0;
    for (String value : values) {
      int at = line.indexOf(value, from);
      if (at < 0 || line.indexOf(value, at + 1) >= 0 || line.indexOf(value) < from) {
        throw new IllegalArgumentException(
            "'" + value + "' is not once, in order, in the line " + line);
      }
      pieces.add(line.substring(from, at));
      from = at + value.length();
    }
    pieces.add(line.substring(from));
    return new LineTemplate(List.copyOf(pieces));
  }

  /** Writes the line with {@code values} in place of the ones cut out, and a newline. */
  void writeTo(Writer out, String... values) throws IOException {
    for (int i = 0; i < values.length; i++) {
      out.write(pieces.get(i));
      out.write(values[i]);
    }
    out.write(pieces.get(values.length));
    out.write('\n');
  }
}
