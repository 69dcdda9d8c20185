package io.tpotstream.sink.file;

import io.tpotstream.sink.record.LineText;
import java.util.ArrayList;
import java.util.List;

/** RFC 4180 CSV lines: a cell is quoted when it holds a comma or a quote. */
public final class Csv {
  private Csv() {}

  /**
   * One CSV line (no newline); control characters and line separators inside a cell become spaces
   * ({@link LineText}, the text {@link io.tpotstream.sink.record.WindowKey} compares).
   */
  public static String line(List<String> cells) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        line.append(',');
      }
      String cell = LineText.of(cells.get(i));
      if (cell.indexOf(',') >= 0 || cell.indexOf('"') >= 0) {
        line.append('"').append(cell.replace("\"", "\"\"")).append('"');
      } else {
        line.append(cell);
      }
    }
    return line.toString();
  }

  /**
   * The cells of one line written by {@link #line}.
   *
   * @throws IllegalArgumentException when a quoted cell is not closed
   */
  public static List<String> parse(String line) {
    List<String> cells = new ArrayList<>();
    StringBuilder cell = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          cell.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          cell.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        cells.add(cell.toString());
        cell.setLength(0);
      } else {
        cell.append(c);
      }
    }
    if (quoted) {
      throw new IllegalArgumentException("unclosed quote in CSV line: " + line);
    }
    cells.add(cell.toString());
    return cells;
  }
}
