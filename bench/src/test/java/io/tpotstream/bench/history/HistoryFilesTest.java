package io.tpotstream.bench.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.file.Csv;
import io.tpotstream.sink.record.FlatRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** B6's history files hold exactly the lines the sink writes for those summaries. */
class HistoryFilesTest {
  @TempDir Path dir;

  @Test
  void everyLineIsTheSinksOwnLineForThatSeriesAndWindow() throws IOException {
    HistoryFiles history = new HistoryFiles();
    Path csv = dir.resolve("summaries.csv");
    Path jsonl = dir.resolve("summaries.jsonl");
    long lastEndMs = 1_767_225_600_000L;

    long bytes = history.write(csv, jsonl, 3, lastEndMs);

    List<String> csvLines =
        new ArrayList<>(List.of(String.join(",", FlatRecord.columns(List.of()))));
    List<String> jsonLines = new ArrayList<>();
    for (int w = 2; w >= 0; w--) {
      for (int s = 0; s < HistoryFiles.SERIES; s++) {
        var summary = history.summary(s, lastEndMs - w * HistoryFiles.WINDOW_MS);
        csvLines.add(Csv.line(FlatRecord.of(summary).cells(List.of())));
        jsonLines.add(WindowSummaryCodec.encodeToString(summary));
      }
    }
    assertEquals(csvLines, Files.readAllLines(csv));
    assertEquals(jsonLines, Files.readAllLines(jsonl));
    assertEquals(Files.size(csv) + Files.size(jsonl), bytes);
  }

  @Test
  void noWindowsLeavesBothFilesEmpty() throws IOException {
    Path csv = dir.resolve("summaries.csv");
    Path jsonl = dir.resolve("summaries.jsonl");
    assertEquals(0, new HistoryFiles().write(csv, jsonl, 0, 1_767_225_600_000L));
    assertEquals(0, Files.size(csv) + Files.size(jsonl));
  }
}
