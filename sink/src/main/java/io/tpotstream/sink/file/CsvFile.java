package io.tpotstream.sink.file;

import io.tpotstream.sink.record.FlatRecord;
import io.tpotstream.sink.record.RecentWindows;
import io.tpotstream.sink.record.WindowKey;
import java.io.Closeable;
import java.nio.file.Path;
import java.util.ArrayList;
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
 * restarts, with one writer at a time ({@link LineLog}). On open a torn last line is cut and the
 * (series, window) pairs of the file's last rows are remembered ({@link RecentWindows}), so that
 * summaries read again after a crash are skipped; {@link #scanHistory()} learns every series'
 * latest windows from the whole file, for a reader that starts from the earliest summary again.
 *
 * <p>Label columns are fixed with the header: by the labels given to {@link #open}, else by the
 * labels of the first record written. A record's label that has no column is left out of its row
 * (its {@code series} cell still names it); a column the record has no label for is an empty cell.
 */
public final class CsvFile implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CsvFile.class);

  private final LineLog log;
  private final Path path;
  private final List<String> fixedLabels;

  /** Rows read back on open: the uncommitted tail is at most one batch. */
  public static final long DEFAULT_TAIL_ROWS = 1_000;

  private static final int TS_INDEX = FlatRecord.LEADING_COLUMNS.indexOf("ts");
  private static final int SERIES_INDEX = FlatRecord.LEADING_COLUMNS.indexOf("series");

  private final RecentWindows keys;
  private final Set<String> warnedLabels = new TreeSet<>();
  private List<String> labelNames;
  private boolean hasRows;
  private int columns;
  private long skippedRows;

  /** Skipped rows warned about one by one; the others are counted. */
  private static final int MAX_SKIP_WARNINGS = 10;

  private CsvFile(Path path, List<String> fixedLabels, long tailRows) {
    this.fixedLabels = fixedLabels == null ? null : List.copyOf(fixedLabels);
    this.keys = new RecentWindows(path.toString());
    this.path = path;
    this.log = LineLog.open(path, tailRows, this::readHeader, this::readRow);
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
    return open(path, fixedLabels, DEFAULT_TAIL_ROWS);
  }

  /**
   * As {@link #open(Path, List)}, remembering the windows of the last {@code tailRows} rows.
   *
   * @throws FileInUseException when another writer holds the file
   */
  public static CsvFile open(Path path, List<String> fixedLabels, long tailRows) {
    return new CsvFile(path, fixedLabels, tailRows);
  }

  /**
   * Reads every row of the file once to learn each series' latest windows (memory stays bounded;
   * time grows with the file): for a reader that offers every summary again from the earliest.
   */
  public void scanHistory() {
    boolean[] header = {true};
    LineLog.readComplete(
        log.path(),
        line -> {
          if (!header[0]) {
            readRow(line);
          }
          header[0] = false;
        });
  }

  /** (series, window) pairs remembered, over every series: bounded, whatever the file's length. */
  public int keptWindows() {
    return keys.size();
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
    hasRows = true;
    return true;
  }

  /** Writes the buffered rows and forces them to the disk. */
  public void sync() {
    log.sync();
  }

  /** Whether the file holds a row (found on open or appended). */
  public boolean hasRows() {
    return hasRows;
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

  private void readHeader(String line) {
    labelNames = labelsOfHeader(Csv.parse(line));
  }

  /**
   * Remembers the (series, window) of a row read back; a blank or malformed row (edited by hand, or
   * a write torn inside the file) is skipped with a warning, as the JSONL reader skips a bad line:
   * what the sink can read of the file still protects it.
   */
  private void readRow(String line) {
    if (columns == 0) {
      columns = FlatRecord.columns(labelNames).size();
    }
    WindowKey key;
    try {
      List<String> cells = Csv.parse(line);
      if (cells.size() != columns) {
        throw new IllegalArgumentException(cells.size() + " cells where the header has " + columns);
      }
      key = new WindowKey(cells.get(SERIES_INDEX), Long.parseLong(cells.get(TS_INDEX)));
    } catch (IllegalArgumentException e) { // NumberFormatException too
      skipped(line, e.getMessage());
      return;
    }
    keys.remember(key);
    hasRows = true;
  }

  private void skipped(String line, String why) {
    if (++skippedRows <= MAX_SKIP_WARNINGS) {
      LOG.warn(
          "{}: a row that is not a summary row is skipped ({}{}): {}",
          path,
          why,
          skippedRows == MAX_SKIP_WARNINGS ? "; further ones are counted, not shown" : "",
          line.length() > 200 ? line.substring(0, 200) + "…" : line);
    }
  }

  /** Rows read back that were blank or malformed, and skipped. */
  public long skippedRows() {
    return skippedRows;
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
