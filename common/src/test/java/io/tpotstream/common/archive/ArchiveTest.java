package io.tpotstream.common.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArchiveTest {

  private static TokenEvent token(long ts, String requestId, int seq) {
    return TokenEvent.token(
        ts, "run", requestId, "model-a", null, seq * 1_000_000L, seq, 1, TokenKind.CONTENT, "p");
  }

  @Test
  void recordsRoundTripThroughAGzipArchiveInReplayOrder(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("events.jsonl.gz");
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      // written in partition order, as export reads them; replay order interleaves them by ts
      writer.write("r1", 1, 0, 1_000, TokenEventCodec.encode(token(1_000, "r1", 0)));
      writer.write("r1", 1, 1, 1_003, TokenEventCodec.encode(token(1_003, "r1", 1)));
      writer.write("r2", 0, 0, 1_003, TokenEventCodec.encode(token(1_003, "r2", 0)));
      writer.write("r2", 0, 1, 1_001, TokenEventCodec.encode(token(1_001, "r2", 1)));
    }
    List<String> corrupt = new ArrayList<>();
    List<ArchivedRecord> records =
        ArchiveReader.readInReplayOrder(file, (line, reason) -> corrupt.add(line + ": " + reason));
    assertEquals(List.of(), corrupt);
    assertEquals(4, records.size());
    assertEquals(
        List.of(1_000L, 1_001L, 1_003L, 1_003L), records.stream().map(ArchivedRecord::ts).toList());
    // equal ts: partition 0 before partition 1
    assertEquals("r2", records.get(2).key());
    assertEquals(0, records.get(2).partition());
    assertEquals(token(1_003, "r1", 1), records.get(3).event());
  }

  @Test
  void aFinalHeartbeatIsReplayedAfterEveryOtherEventOfItsMillisecond(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("events.jsonl");
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      writer.write(
          "p",
          0,
          7,
          2_000,
          TokenEventCodec.encode(TokenEvent.heartbeat(2_000, "run", "p", 1_800, true, null)));
      writer.write("r1", 1, 3, 2_000, TokenEventCodec.encode(token(2_000, "r1", 5)));
    }
    List<ArchivedRecord> records = ArchiveReader.readInReplayOrder(file, (line, reason) -> {});
    assertEquals("r1", records.get(0).key());
    assertEquals(true, records.get(1).isFinalHeartbeat());
  }

  @Test
  void aCorruptLineIsReportedWithItsNumberAndSkipped(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("events.jsonl");
    String good =
        "{\"key\":\"r1\",\"partition\":0,\"offset\":0,\"timestamp\":5,\"value\":"
            + TokenEventCodec.encodeToString(token(5, "r1", 0))
            + "}";
    String good2 = TokenEventCodec.encodeToString(token(6, "r1", 1));
    Files.writeString(
        file, good + "\n{\"key\":\"r1\",\"partit\n" + good2 + "\n[1]\n", StandardCharsets.UTF_8);
    List<Long> corruptLines = new ArrayList<>();
    List<ArchivedRecord> records =
        ArchiveReader.readAll(file, (line, reason) -> corruptLines.add(line));
    assertEquals(List.of(2L, 4L), corruptLines);
    assertEquals(2, records.size());
    assertEquals(token(6, "r1", 1), records.get(1).event());
  }
}
