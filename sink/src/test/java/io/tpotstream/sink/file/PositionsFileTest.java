package io.tpotstream.sink.file;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A sink's positions survive it, for its own group and topic only. */
class PositionsFileTest {
  @TempDir Path dir;

  @Test
  void positionsWrittenAreReadBackByTheSameGroupAndTopicOnly() throws Exception {
    Path path = PositionsFile.beside(dir.resolve("summaries.csv"));
    assertEquals(dir.resolve("summaries.csv.positions"), path);
    PositionsFile written = new PositionsFile(path, "tpot-sink", "tpot.window-summaries");
    assertEquals(Map.of(), written.read());
    written.advance(Map.of(0, 12L, 1, 40L));
    written.advance(Map.of(1, 41L));

    assertEquals(
        Map.of(0, 12L, 1, 41L),
        new PositionsFile(path, "tpot-sink", "tpot.window-summaries").read());
    assertEquals(Map.of(), new PositionsFile(path, "other", "tpot.window-summaries").read());
    assertEquals(Map.of(), new PositionsFile(path, "tpot-sink", "other").read());
    try (var names = Files.list(dir)) {
      assertEquals(
          List.of("summaries.csv.positions"), names.map(p -> p.getFileName().toString()).toList());
    }
  }

  @Test
  void anUnreadableFileGivesNoPositions() throws Exception {
    Path path = dir.resolve("summaries.csv.positions");
    for (String content : new String[] {"", "{\"format\":\"tpot-sink-pos", "[1,2]"}) {
      Files.writeString(path, content);
      assertEquals(Map.of(), new PositionsFile(path, "g", "t").read(), content);
    }
  }
}
