package io.tpotstream.sink.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.sink.record.FlatRecord;
import io.tpotstream.sink.record.RecentWindows;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files with a long history: opening reads only their tail, the windows kept to skip summaries read
 * again stay bounded (per series at most {@link RecentWindows#PER_SERIES}), and a restart with
 * redelivery adds exactly the rows that were missing.
 */
@Tag("slow")
class LongHistoryTest {
  private static final int SERIES = 100;
  private static final int WINDOWS = 2_000;
  private static final long TAIL = 1_000;

  @TempDir Path dir;

  /** The window {@code w} of series {@code m<s>}: no sample, so cheap to make 200,000 of. */
  private static WindowSummary summary(int s, int w) {
    return TestWindows.of("m" + s, Map.of(), w, new WindowStats());
  }

  private static String row(int s, int w) {
    return Csv.line(FlatRecord.of(summary(s, w)).cells(List.of()));
  }

  /**
   * A CSV of {@value #WINDOWS} windows × {@value #SERIES} series, window by window: the rows of one
   * real record with the window and series cells replaced (making 200,000 records takes minutes).
   */
  private Path csvHistory() throws IOException {
    Path path = dir.resolve("summaries.csv");
    List<String> template = FlatRecord.of(summary(0, 0)).cells(List.of());
    List<String> leading = FlatRecord.LEADING_COLUMNS;
    try (BufferedWriter out = Files.newBufferedWriter(path)) {
      out.write(String.join(",", FlatRecord.columns(List.of())) + "\n");
      List<String> cells = new ArrayList<>(template);
      for (int w = 0; w < WINDOWS; w++) {
        cells.set(
            leading.indexOf("window_start"),
            Instant.ofEpochMilli(TestWindows.startOf(w)).toString());
        cells.set(
            leading.indexOf("window_end"),
            Instant.ofEpochMilli(TestWindows.startOf(w + 1)).toString());
        cells.set(leading.indexOf("ts"), Long.toString(TestWindows.startOf(w + 1)));
        for (int s = 0; s < SERIES; s++) {
          cells.set(leading.indexOf("series"), "m" + s);
          cells.set(leading.indexOf("model"), "m" + s);
          out.write(Csv.line(cells) + "\n");
        }
      }
    }
    return path;
  }

  @Test
  void aRestartAfterACrashReadsTheTailOnlyAndWritesTheRedeliveredBatchOnce() throws IOException {
    Path path = csvHistory();
    List<String> expected = new ArrayList<>(Files.readAllLines(path));
    assertEquals(1 + SERIES * WINDOWS, expected.size());
    assertEquals(
        row(7, 1234), expected.get(1 + 1234 * SERIES + 7), "history rows as the sink writes");

    try (CsvFile csv = CsvFile.open(path, null, TAIL)) {
      // the last 1,000 rows: the last 10 windows of each of the 100 series
      assertEquals(1_000, csv.keptWindows());
      // the batch written before the crash but not committed comes again, then new windows
      for (int w = WINDOWS - 5; w < WINDOWS + 2; w++) {
        for (int s = 0; s < SERIES; s++) {
          boolean fresh = csv.append(FlatRecord.of(summary(s, w)));
          assertEquals(w >= WINDOWS, fresh, "m" + s + " window " + w);
          if (fresh) {
            expected.add(row(s, w));
          }
        }
      }
      csv.sync();
      assertEquals(1_200, csv.keptWindows());
    }

    assertEquals(expected, Files.readAllLines(path));
  }

  @Test
  void aNewGroupReadingFromTheEarliestScansOnceAndAddsOnlyNewWindows() throws IOException {
    Path path = csvHistory();
    List<String> expected = new ArrayList<>(Files.readAllLines(path));

    try (CsvFile csv = CsvFile.open(path, null, TAIL)) {
      csv.scanHistory();
      assertEquals(SERIES * RecentWindows.PER_SERIES, csv.keptWindows());
      for (int s = 0; s < SERIES; s++) {
        // from the earliest: the oldest, the middle, the newest already written, then a new one
        for (int w : new int[] {0, 1, WINDOWS / 2, WINDOWS - 65, WINDOWS - 64, WINDOWS - 1}) {
          assertFalse(csv.append(FlatRecord.of(summary(s, w))), "m" + s + " window " + w);
        }
        assertTrue(csv.append(FlatRecord.of(summary(s, WINDOWS))));
        expected.add(row(s, WINDOWS));
      }
      csv.sync();
      assertEquals(SERIES * RecentWindows.PER_SERIES, csv.keptWindows());
    }

    assertEquals(expected, Files.readAllLines(path));
  }

  @Test
  void theJsonlFileHandsBackItsTailOnlyAndKeepsBoundedWindows() throws IOException {
    Path path = dir.resolve("summaries.jsonl");
    int series = 10;
    int windows = 300;
    try (JsonlFile jsonl = JsonlFile.open(path, s -> {})) {
      for (int w = 0; w < windows; w++) {
        for (int s = 0; s < series; s++) {
          jsonl.append(summary(s, w));
        }
      }
      jsonl.sync();
      assertEquals(series * RecentWindows.PER_SERIES, jsonl.keptWindows());
    }

    List<WindowSummary> restored = new ArrayList<>();
    try (JsonlFile jsonl = JsonlFile.open(path, TAIL, restored::add)) {
      // the last 1,000 lines: windows 200 to 299 of each series, 64 of them kept per series
      assertEquals(1_000, restored.size());
      assertEquals(summary(0, 200).windowEndMs(), restored.get(0).windowEndMs());
      assertEquals(series * RecentWindows.PER_SERIES, jsonl.keptWindows());
      assertFalse(jsonl.append(summary(3, windows - 1)));
      assertFalse(jsonl.append(summary(3, 7)), "older than every window kept: written before");
      assertTrue(jsonl.append(summary(3, windows)));
      jsonl.sync();
    }
    assertEquals(series * windows + 1, Files.readAllLines(path).size());
  }
}
