package io.tpotstream.sink.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.sink.TestWindows;
import io.tpotstream.sink.record.FlatRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvFileTest {
  @TempDir Path dir;

  private static FlatRecord row(String model, Map<String, String> labels, int window) {
    return FlatRecord.of(TestWindows.summary(model, labels, window));
  }

  private static String line(FlatRecord record, List<String> labels) {
    return Csv.line(record.cells(labels));
  }

  @Test
  void headerIsWrittenOnceAndLabelColumnsComeFromTheFirstSummary() throws IOException {
    Path path = dir.resolve("out/summaries.csv");
    FlatRecord a0 = row("a", Map.of("concurrency", "5"), 0);
    FlatRecord b0 = row("b", Map.of(), 0);
    FlatRecord c0 = row("c", Map.of("concurrency", "20", "run", "r1"), 0);
    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(a0);
      csv.append(b0);
      csv.sync();
    }
    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(c0);
      csv.sync();
    }

    List<String> labels = List.of("concurrency");
    assertEquals(
        List.of(
            String.join(",", FlatRecord.columns(labels)),
            line(a0, labels),
            line(b0, labels),
            line(c0, labels)),
        Files.readAllLines(path));
    assertEquals("", b0.cells(labels).get(5), "b has no concurrency label: empty cell");
    assertTrue(line(c0, labels).contains("\"c{concurrency=20,run=r1}\""), line(c0, labels));
  }

  @Test
  void fixedLabelsDecideTheColumns() throws IOException {
    Path path = dir.resolve("s.csv");
    FlatRecord a0 = row("a", Map.of("concurrency", "5"), 0);
    try (CsvFile csv = CsvFile.open(path, List.of("target", "concurrency"))) {
      csv.append(a0);
      csv.sync();
    }

    assertEquals(
        String.join(",", FlatRecord.columns(List.of("target", "concurrency"))),
        Files.readAllLines(path).get(0));
    assertEquals(List.of("", "5"), a0.cells(List.of("target", "concurrency")).subList(5, 7));
  }

  @Test
  void reopeningSkipsWindowsAlreadyInTheFile() throws IOException {
    Path path = dir.resolve("s.csv");
    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(row("a", Map.of(), 0));
      csv.append(row("a", Map.of(), 1));
      csv.sync();
    }
    try (CsvFile csv = CsvFile.open(path, null)) {
      assertTrue(csv.hasRows());
      assertEquals(2, csv.keptWindows());
      assertFalse(csv.append(row("a", Map.of(), 1)));
      assertTrue(csv.append(row("a", Map.of(), 2)));
      assertFalse(csv.append(row("a", Map.of(), 2)));
      csv.sync();
    }

    assertEquals(4, Files.readAllLines(path).size());
  }

  /**
   * Every character that would break or hide a line (U+0000-U+001F, U+007F-U+009F, U+2028, U+2029),
   * in a model and in a label value: the row is written on one line, and read back after a restart
   * (its tail) or by a new group (the whole file) it is the same row, never appended twice.
   */
  @Test
  void aSeriesWithAnyControlCharacterIsInTheCsvOnceAfterARestartAndForANewGroup()
      throws IOException {
    List<Character> breaking = new java.util.ArrayList<>();
    for (char c = 0; c < 0x20; c++) {
      breaking.add(c);
    }
    for (char c = 0x7f; c <= 0x9f; c++) {
      breaking.add(c);
    }
    breaking.add('\u2028');
    breaking.add('\u2029');
    Path path = dir.resolve("s.csv");
    List<FlatRecord> rows = new java.util.ArrayList<>();
    for (char c : breaking) {
      // each its own series once its characters are spaces
      Map<String, String> labels = Map.of("run", "v" + c + "w");
      rows.add(row("line" + c + "break" + (int) c, labels, 0));
      rows.add(row("line" + c + "break" + (int) c, labels, 1));
    }
    try (CsvFile csv = CsvFile.open(path, List.of("run"))) {
      rows.forEach(r -> assertTrue(csv.append(r), r.series()));
      csv.sync();
    }
    int lines = 1 + rows.size();
    assertEquals(lines, Files.readAllLines(path).size(), "one line per row");

    try (CsvFile restarted = CsvFile.open(path, List.of("run"))) {
      rows.forEach(r -> assertFalse(restarted.append(r), r.series()));
      restarted.sync();
    }
    try (CsvFile newGroup = CsvFile.open(path, List.of("run"), 0)) {
      newGroup.scanHistory();
      rows.forEach(r -> assertFalse(newGroup.append(r), r.series()));
      newGroup.sync();
    }
    List<String> written = Files.readAllLines(path);
    assertEquals(lines, written.size());
    assertEquals(written.size(), new java.util.HashSet<>(written).size(), "no row twice");
    for (String line : written) {
      assertTrue(line.chars().noneMatch(c -> Character.isISOControl(c) || c == 0x2028), line);
    }
  }

  @Test
  void blankAndMalformedRowsInTheTailAreSkippedAndTheOthersStillProtectTheFile()
      throws IOException {
    Path path = dir.resolve("s.csv");
    FlatRecord a0 = row("a", Map.of(), 0);
    FlatRecord a1 = row("a", Map.of(), 1);
    Files.write(
        path,
        List.of(
            String.join(",", FlatRecord.columns(List.of())),
            line(a0, List.of()),
            "",
            "not,a,row",
            "\"unclosed," + line(a0, List.of()),
            line(a1, List.of()).replace("," + a1.ts() + ",", ",soon,"),
            line(a1, List.of())));

    long[] tails = {CsvFile.DEFAULT_TAIL_ROWS, 0};
    for (int pass = 0; pass < tails.length; pass++) {
      try (CsvFile csv = CsvFile.open(path, null, tails[pass])) {
        if (tails[pass] == 0) {
          csv.scanHistory(); // a new group reads the whole file
        }
        assertEquals(4, csv.skippedRows());
        assertEquals(2 + pass, csv.keptWindows());
        assertFalse(csv.append(a0));
        assertFalse(csv.append(a1));
        assertTrue(csv.append(row("a", Map.of(), 2 + pass)));
        csv.sync();
      }
    }
    assertEquals(9, Files.readAllLines(path).size());
  }

  @Test
  void aTornLastLineIsCutAndItsRowWrittenAgain() throws IOException {
    Path path = dir.resolve("s.csv");
    FlatRecord a1 = row("a", Map.of(), 1);
    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(row("a", Map.of(), 0));
      csv.sync();
    }
    String torn = line(a1, List.of()).substring(0, 40);
    Files.writeString(path, torn, StandardOpenOption.APPEND);

    try (CsvFile csv = CsvFile.open(path, null)) {
      assertEquals(1, csv.keptWindows());
      assertTrue(csv.append(a1));
      csv.sync();
    }

    List<String> lines = Files.readAllLines(path);
    assertEquals(3, lines.size());
    assertEquals(line(a1, List.of()), lines.get(2));
  }

  @Test
  void aTornHeaderIsCutAndWrittenAgain() throws IOException {
    Path path = dir.resolve("s.csv");
    Files.writeString(path, "window_start,window_e");
    FlatRecord a0 = row("a", Map.of(), 0);

    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(a0);
      csv.sync();
    }

    assertEquals(
        List.of(String.join(",", FlatRecord.columns(List.of())), line(a0, List.of())),
        Files.readAllLines(path));
  }

  @Test
  void aFileWithAnotherHeaderIsRefused() throws IOException {
    Path path = dir.resolve("s.csv");
    Files.writeString(path, "a,b,c\n1,2,3\n", StandardCharsets.UTF_8);

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CsvFile.open(path, null));
    assertTrue(e.getMessage().contains("other columns"), e.getMessage());
  }

  @Test
  void labelsThatDifferFromTheExistingHeaderAreRefused() throws IOException {
    Path path = dir.resolve("s.csv");
    try (CsvFile csv = CsvFile.open(path, null)) {
      csv.append(row("a", Map.of("concurrency", "5"), 0));
      csv.sync();
    }

    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> CsvFile.open(path, List.of("run")));
    assertTrue(e.getMessage().contains("[concurrency]"), e.getMessage());
  }

  @Test
  void csvQuotingRoundTrips() {
    List<String> cells = List.of("plain", "with,comma", "with \"quote\"", "");
    assertEquals(cells, Csv.parse(Csv.line(cells)));
  }
}
