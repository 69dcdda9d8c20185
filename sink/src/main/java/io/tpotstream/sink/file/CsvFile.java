package io.tpotstream.sink.file;

import io.tpotstream.sink.record.FlatRecord;
import io.tpotstream.sink.record.WindowKey;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The summaries CSV: a header once, then one row per (series, window), each at most once across
 * restarts. On open a torn last line is cut and the (series, window) pairs already in the file are
 * remembered, so that summaries read again after a crash are skipped.
 *
 * <p>Label columns are fixed with the header: by the labels given to {@link #open}, else by the
 * labels of the first record written. A record's label that has no column is left out of its row
 * (its {@code series} cell still names it); a column the record has no label for is an empty cell.
 */
public final class CsvFile implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CsvFile.class);

  private final LineLog log;
  private final List<String> fixedLabels;
  private final Set<WindowKey> keys = new HashSet<>();
  private final Set<String> warnedLabels = new TreeSet<>();
  private List<String> labelNames;
  private long rows;

  private CsvFile(Path path, List<String> fixedLabels) {
    this.fixedLabels = fixedLabels == null ? null : List.copyOf(fixedLabels);
    this.log = LineLog.open(path, this::readExisting);
    if (this.fixedLabels != null && labelNames != null && !labelNames.equals(this.fixedLabels)) {
      log.close();
      throw new IllegalArgumentException(
          path
              + " has the label columns "
              + labelNames
              + " but "
              + this.fixedLabels
              + " were asked for: pass the same labels or write another CSV");
    }
  }

  /**
   * Opens or creates the CSV at {@code path}.
   *
   * @param fixedLabels the label columns, in order; null to take the first record's labels
   * @throws IllegalArgumentException when the file exists with another header
   */
  public static CsvFile open(Path path, List<String> fixedLabels) {
    return new CsvFile(path, fixedLabels);
  }

  public boolean contains(WindowKey key) {
    return keys.contains(key);
  }

  /**
   * Buffers the row of {@code record} (and the header first, for a new file) unless its (series,
   * window) is already in the file.
   *
   * @return false when the row was already there
   */
  public boolean append(FlatRecord record) {
    if (!keys.add(record.key())) {
      return false;
    }
    if (labelNames == null) {
      labelNames = fixedLabels != null ? fixedLabels : List.copyOf(record.labels().keySet());
      log.append(Csv.line(FlatRecord.columns(labelNames)));
    }
    for (String label : record.labels().keySet()) {
      if (!labelNames.contains(label) && warnedLabels.add(label)) {
        LOG.warn(
            "{}: label '{}' of series {} has no column (columns: {}); the series cell still"
                + " names it",
            log.path(),
            label,
            record.series(),
            labelNames);
      }
    }
    log.append(Csv.line(record.cells(labelNames)));
    rows++;
    return true;
  }

  /** Writes the buffered rows and forces them to the disk. */
  public void sync() {
    log.sync();
  }

  /** Rows in the file, including those found on open. */
  public long rows() {
    return rows;
  }

  /**
   * Reads every complete row of a summaries CSV as column name → cell (empty cells included),
   * without changing the file: it may be read while a sink appends to it.
   */
  public static void readRows(Path path, Consumer<Map<String, String>> rows) {
    List<String> header = new ArrayList<>();
    LineLog.readComplete(
        path,
        line -> {
          List<String> cells = Csv.parse(line);
          if (header.isEmpty()) {
            header.addAll(cells);
            return;
          }
          Map<String, String> row = new LinkedHashMap<>();
          for (int i = 0; i < header.size() && i < cells.size(); i++) {
            row.put(header.get(i), cells.get(i));
          }
          rows.accept(row);
        });
  }

  /** The label columns, or null while the file has no header yet. */
  public List<String> labelNames() {
    return labelNames;
  }

  public Path path() {
    return log.path();
  }

  @Override
  public void close() {
    log.close();
  }

  private void readExisting(String line) {
    List<String> cells = Csv.parse(line);
    if (labelNames == null) {
      labelNames = labelsOfHeader(cells);
      return;
    }
    int expected = FlatRecord.columns(labelNames).size();
    int tsIndex = FlatRecord.LEADING_COLUMNS.indexOf("ts");
    int seriesIndex = FlatRecord.LEADING_COLUMNS.indexOf("series");
    if (cells.size() != expected) {
      throw new IllegalArgumentException(
          "a row of the CSV has "
              + cells.size()
              + " cells where the header has "
              + expected
              + ": the file was changed by hand? Row: "
              + line);
    }
    keys.add(new WindowKey(cells.get(seriesIndex), Long.parseLong(cells.get(tsIndex))));
    rows++;
  }

  private List<String> labelsOfHeader(List<String> header) {
    List<String> labels = new ArrayList<>();
    int i = FlatRecord.LEADING_COLUMNS.size();
    while (i < header.size() && header.get(i).startsWith(FlatRecord.LABEL_PREFIX)) {
      labels.add(header.get(i).substring(FlatRecord.LABEL_PREFIX.length()));
      i++;
    }
    if (!header.equals(FlatRecord.columns(labels))) {
      throw new IllegalArgumentException(
          "the CSV exists with other columns than a tpot summaries CSV ("
              + String.join(",", header)
              + "): move it away or choose another CSV path (an older tpot wrote fewer columns?)");
    }
    return List.copyOf(labels);
  }
}
