package io.tpotstream.sink.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.TestWindows;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonlFileTest {
  @TempDir Path dir;

  @Test
  void reopeningHandsBackEachSummaryOnceAndSkipsThemOnAppend() throws IOException {
    Path path = dir.resolve("s.jsonl");
    WindowSummary a0 = TestWindows.summary("a", Map.of(), 0);
    WindowSummary a1 = TestWindows.summary("a", Map.of(), 1);
    try (JsonlFile jsonl = JsonlFile.open(path, s -> {})) {
      jsonl.append(a0);
      jsonl.append(a1);
      jsonl.sync();
    }
    Files.writeString(
        path, WindowSummaryCodec.encodeToString(a1).substring(0, 100), StandardOpenOption.APPEND);

    List<WindowSummary> found = new ArrayList<>();
    try (JsonlFile jsonl = JsonlFile.open(path, found::add)) {
      assertFalse(jsonl.append(a1));
    }

    assertEquals(List.of(a0.series(), a1.series()), found.stream().map(s -> s.series()).toList());
    assertEquals(
        List.of(a0.windowEndMs(), a1.windowEndMs()),
        found.stream().map(WindowSummary::windowEndMs).toList());
    assertEquals(
        List.of(WindowSummaryCodec.encodeToString(a0), WindowSummaryCodec.encodeToString(a1)),
        Files.readAllLines(path));
  }

  /** The JSONL file keys a row as the CSV does, whatever control characters its series holds. */
  @Test
  void aSeriesWithAnyControlCharacterIsInTheFileOnceAfterARestartAndForANewGroup()
      throws IOException {
    Path path = dir.resolve("s.jsonl");
    List<WindowSummary> summaries = new ArrayList<>();
    for (char c = 0; c <= 0x9f; c = c == 0x1f ? 0x7f : (char) (c + 1)) {
      summaries.add(TestWindows.summary("line" + c + "break" + (int) c, Map.of("run", "v" + c), 0));
    }
    summaries.add(TestWindows.summary("line\u2028break", Map.of("run", "v\u2029"), 0));
    try (JsonlFile jsonl = JsonlFile.open(path, s -> {})) {
      summaries.forEach(jsonl::append);
      jsonl.sync();
    }
    try (JsonlFile restarted = JsonlFile.open(path, s -> {})) {
      summaries.forEach(s -> assertFalse(restarted.append(s), s.series()));
    }
    try (JsonlFile newGroup = JsonlFile.open(path, 0, s -> {})) {
      newGroup.scanHistory();
      summaries.forEach(s -> assertFalse(newGroup.append(s), s.series()));
    }
    assertEquals(summaries.size(), Files.readAllLines(path).size());
  }

  @Test
  void readingLeavesAStillBeingWrittenLastLineAlone() throws IOException {
    Path path = dir.resolve("s.jsonl");
    WindowSummary a0 = TestWindows.summary("a", Map.of(), 0);
    String partial = WindowSummaryCodec.encodeToString(TestWindows.summary("a", Map.of(), 1));
    Files.writeString(
        path, WindowSummaryCodec.encodeToString(a0) + "\n" + partial.substring(0, 50));

    List<WindowSummary> found = new ArrayList<>();
    JsonlFile.read(path, found::add);

    assertEquals(1, found.size());
    assertEquals(a0.windowEndMs(), found.get(0).windowEndMs());
    assertEquals(
        WindowSummaryCodec.encodeToString(a0).length() + 1 + 50, Files.size(path), "unchanged");
  }
}
