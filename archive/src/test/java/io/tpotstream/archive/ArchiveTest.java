package io.tpotstream.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.event.TokenKind;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ArchiveTest {
  @TempDir Path dir;

  /** A time within the token events' bounds, to which the tests' times are added. */
  private static final long T0 = 1_700_000_000_000L;

  private static TokenEvent token(long ts, String requestId, int seq) {
    return TokenEvent.token(
        ts, "run", requestId, "model-a", null, seq * 1_000_000L, seq, 1, TokenKind.CONTENT, "p");
  }

  private static List<ArchivedRecord> read(Path file, List<String> corrupt) throws Exception {
    return ArchiveReader.readInReplayOrder(
        file, (line, reason) -> corrupt.add(line + ": " + reason));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"events.jsonl", "events.jsonl.gz", "events.jsonl.zst", "events.jsonl.lz4"})
  void recordsRoundTripInReplayOrderWhateverTheCompression(String name) throws Exception {
    Path file = dir.resolve(name);
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      // written in partition order, as export reads them; replay order interleaves them by ts
      writer.write("r1", 1, 0, T0 + 1_000, TokenEventCodec.encode(token(T0 + 1_000, "r1", 0)));
      writer.write("r1", 1, 1, T0 + 1_003, TokenEventCodec.encode(token(T0 + 1_003, "r1", 1)));
      writer.write("r2", 0, 0, T0 + 1_003, TokenEventCodec.encode(token(T0 + 1_003, "r2", 0)));
      writer.write("r2", 0, 1, T0 + 1_001, TokenEventCodec.encode(token(T0 + 1_001, "r2", 1)));
    }
    List<String> corrupt = new ArrayList<>();
    List<ArchivedRecord> records = read(file, corrupt);
    assertEquals(List.of(), corrupt);
    assertEquals(
        List.of(T0 + 1_000L, T0 + 1_001L, T0 + 1_003L, T0 + 1_003L),
        records.stream().map(ArchivedRecord::ts).toList());
    // equal ts: partition 0 before partition 1
    assertEquals("r2", records.get(2).key());
    assertEquals(0, records.get(2).partition());
    assertEquals(token(T0 + 1_003, "r1", 1), records.get(3).event());
    assertEquals(1, records.get(3).offset());
    assertEquals(2, records.get(3).line());
    assertArrayEquals(
        TokenEventCodec.encode(token(T0 + 1_003, "r1", 1)), records.get(3).valueBytes());
  }

  @Test
  void theFileIsTheStandardFormatOfItsExtension() throws Exception {
    Path file = dir.resolve("events.jsonl.gz");
    try (ArchiveWriter writer = new ArchiveWriter(file, 9)) {
      writer.write("r1", 0, 7, 1_000, TokenEventCodec.encode(token(1_000, "r1", 0)));
    }
    try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
      assertEquals(
          "{\"key\":\"r1\",\"partition\":0,\"offset\":7,\"timestamp\":1000,\"value\":"
              + TokenEventCodec.encodeToString(token(1_000, "r1", 0))
              + "}\n",
          new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  @Test
  void aLevelTheFormatDoesNotHaveIsRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new ArchiveWriter(dir.resolve("x.jsonl.gz"), 12));
    assertEquals("--compression-level 12: gzip takes 1 to 9", e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> new ArchiveWriter(dir.resolve("x.jsonl"), 3));
    assertTrue(e.getMessage().contains("the file is not compressed"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void theReaderSortsExactlyAsTheReplayOrderSays(boolean offsetsInOrder) throws Exception {
    java.util.Random random = new java.util.Random(offsetsInOrder ? 1 : 2);
    Path file = dir.resolve("order.jsonl");
    long[] nextOffset = new long[4];
    List<Integer> partitions = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      partitions.add(random.nextInt(4));
    }
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      for (int p : partitions) {
        long offset = offsetsInOrder ? nextOffset[p]++ : random.nextInt(50);
        long ts = 1_000 + random.nextInt(40); // many ties
        TokenEvent e =
            random.nextInt(10) == 0
                ? TokenEvent.heartbeat(ts, "run", "p", ts - 200, random.nextBoolean(), null)
                : token(ts, "r" + random.nextInt(9), random.nextInt(100));
        writer.write("k", p, offset, ts, TokenEventCodec.encode(e));
      }
    }
    List<ArchivedRecord> read = read(file, new ArrayList<>());
    List<ArchivedRecord> expected = new ArrayList<>(read);
    java.util.Collections.shuffle(expected, random);
    expected.sort(ArchivedRecord.REPLAY_ORDER);
    assertEquals(
        expected.stream().map(ArchivedRecord::line).toList(),
        read.stream().map(ArchivedRecord::line).toList());
  }

  @Test
  void everyRecordComesBackAsWrittenWhateverItsKeyAndValue() throws Exception {
    java.util.Random random = new java.util.Random(3);
    String[] keys = {null, "r-1", "quote\"d", "back\\slash", "tab\tnewline\n", "é-ü-日本", ""};
    List<byte[][]> written = new ArrayList<>();
    Path file = dir.resolve("random.jsonl.gz");
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      for (int i = 0; i < 2_000; i++) {
        String key = keys[random.nextInt(keys.length)];
        byte[] value =
            switch (random.nextInt(6)) {
              case 0 -> null;
              case 1 -> ("poison " + i + " \"x\"\n").getBytes(StandardCharsets.UTF_8);
              case 2 ->
                  TokenEventCodec.encode(
                      TokenEvent.heartbeat(5_000 + i, "run", "p", 4_800 + i, false, 7L));
              default -> TokenEventCodec.encode(token(5_000 + i, key == null ? "r" : key, i));
            };
        writer.write(key, i % 3, i, 5_000 + i, value);
        written.add(
            new byte[][] {key == null ? null : key.getBytes(StandardCharsets.UTF_8), value});
      }
    }
    List<ArchivedRecord> read = read(file, new ArrayList<>());
    assertEquals(written.size(), read.size());
    for (ArchivedRecord r : read) {
      byte[][] w = written.get((int) r.offset());
      assertArrayEquals(w[0], r.keyBytes(), r.toString());
      assertArrayEquals(w[1], r.valueBytes(), r.toString());
      assertEquals(5_000 + r.offset(), r.ts(), r.toString());
      assertEquals(r.offset() % 3, r.partition());
    }
  }

  @Test
  void aFinalHeartbeatIsReplayedAfterEveryOtherEventOfItsMillisecond() throws Exception {
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
    List<ArchivedRecord> records = read(file, new ArrayList<>());
    assertEquals("r1", records.get(0).key());
    assertTrue(records.get(1).isFinalHeartbeat());
    assertEquals(new ArchivedRecord.Heartbeat("p", 1_800, true), records.get(1).heartbeat());
    assertNull(records.get(0).heartbeat());
  }

  @Test
  void recordsThatAreNotTokenEventsReplayTheirOwnBytes() throws Exception {
    Path file = dir.resolve("poison.jsonl");
    byte[] notJson = "not json at all".getBytes(StandardCharsets.UTF_8);
    byte[] array = "[1,2]".getBytes(StandardCharsets.UTF_8);
    byte[] spread = "{\n \"type\": \"token\",\n \"ts\": 9\n}".getBytes(StandardCharsets.UTF_8);
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      writer.write("a\"b\\c é", 0, 0, 5, notJson);
      writer.write((byte[]) null, 0, 1, 6, array);
      writer.write("k", 0, 2, 7, null);
      writer.write("k", 0, 3, 8, spread);
    }
    assertEquals(4, Files.readAllLines(file).size());
    List<ArchivedRecord> records = read(file, new ArrayList<>());
    assertEquals("a\"b\\c é", records.get(0).key());
    assertArrayEquals("a\"b\\c é".getBytes(StandardCharsets.UTF_8), records.get(0).keyBytes());
    assertArrayEquals(notJson, records.get(0).valueBytes());
    assertEquals(5, records.get(0).ts());
    assertNull(records.get(1).key());
    assertArrayEquals(array, records.get(1).valueBytes());
    assertNull(records.get(2).valueBytes());
    assertEquals(7, records.get(2).ts());
    // an object over several lines is kept on one
    assertEquals("{\"type\":\"token\",\"ts\":9}", new String(records.get(3).valueBytes()));
  }

  @Test
  void theWriterCopiesAValueWhenOneScanShowsOneObjectOnOneLine() {
    for (String yes :
        List.of(
            "{}",
            "{\"a\":\"}\"}",
            "{\"a\":\"x\\\"}\",\"b\":[1,{\"c\":2}]}",
            "{\"model\":\"modèle\"}",
            TokenEventCodec.encodeToString(token(1, "r", 0)))) {
      assertTrue(ArchiveWriter.isOneObjectOnOneLine(yes.getBytes(StandardCharsets.UTF_8)), yes);
    }
    for (String no :
        List.of(
            "",
            "{",
            "[1]",
            "{\"a\":1}{\"b\":2}",
            "{\"a\":1",
            "{\"a\":\"}",
            "{\"a\":\n1}",
            "{\"a\":\"x\ny\"}",
            "{\"a\":1} ",
            "not json")) {
      assertTrue(!ArchiveWriter.isOneObjectOnOneLine(no.getBytes(StandardCharsets.UTF_8)), no);
    }
  }

  @Test
  void otherLayoutsAndBareEventsReadTheSameAsTheWritersLines() throws Exception {
    Path file = dir.resolve("mixed.jsonl");
    String event = TokenEventCodec.encodeToString(token(T0 + 1_002, "r1", 2));
    String heartbeat =
        TokenEventCodec.encodeToString(
            TokenEvent.heartbeat(T0 + 1_001, "run", "p", T0 + 900, false, 4L));
    Files.writeString(
        file,
        String.join(
            "\n",
            "{ \"value\": " + heartbeat + ", \"offset\": 9, \"partition\": 2, \"key\": \"p\" }",
            "",
            event,
            "{\"key\":\"r1\",\"partition\":0,\"offset\":1,\"timestamp\":"
                + (T0 + 1_000)
                + ",\"value\":"
                + TokenEventCodec.encodeToString(token(T0 + 1_000, "r1", 1))
                + "}\r"));
    List<String> corrupt = new ArrayList<>();
    List<ArchivedRecord> records = read(file, corrupt);
    assertEquals(List.of(), corrupt);
    assertEquals(3, records.size());
    assertEquals(T0 + 1_000, records.get(0).ts());
    ArchivedRecord hb = records.get(1);
    assertEquals(2, hb.partition());
    assertEquals(9, hb.offset());
    assertEquals(T0 + 1_001, hb.timestamp()); // no timestamp field: the event's ts
    assertEquals(new ArchivedRecord.Heartbeat("p", T0 + 900, false), hb.heartbeat());
    ArchivedRecord bare = records.get(2);
    assertEquals(0, bare.partition());
    assertEquals(3, bare.offset()); // its line
    assertEquals("r1", bare.key());
    assertEquals(token(T0 + 1_002, "r1", 2), bare.event());
  }

  @Test
  void aCorruptLineIsReportedWithItsNumberAndSkipped() throws Exception {
    Path file = dir.resolve("events.jsonl");
    String good =
        "{\"key\":\"r1\",\"partition\":0,\"offset\":0,\"timestamp\":"
            + (T0 + 5)
            + ",\"value\":"
            + TokenEventCodec.encodeToString(token(T0 + 5, "r1", 0))
            + "}";
    String good2 = TokenEventCodec.encodeToString(token(T0 + 6, "r1", 1));
    Files.writeString(
        file,
        good + "\n{\"key\":\"r1\",\"partit\n" + good2 + "\n[1]\n{\"a\":1}",
        StandardCharsets.UTF_8);
    List<String> corrupt = new ArrayList<>();
    List<ArchivedRecord> records = read(file, corrupt);
    assertEquals(3, corrupt.size(), corrupt.toString());
    assertTrue(corrupt.get(0).startsWith("2: not JSON"), corrupt.get(0));
    assertEquals("4: not a JSON object", corrupt.get(1));
    assertEquals(
        "5: neither an exported record (key, partition, offset, timestamp, value) nor a token"
            + " event",
        corrupt.get(2));
    assertEquals(2, records.size());
    assertEquals(token(T0 + 6, "r1", 1), records.get(1).event());
  }

  @Test
  void aBareEventWithANumberPastALongIsKeptForTheDecoderToRefuse() throws Exception {
    Path file = dir.resolve("big.jsonl");
    String big = "99999999999999999999";
    String token =
        TokenEventCodec.encodeToString(token(5, "r1", 0))
            .replace("\"ts\":5,", "\"ts\":" + big + ",");
    String heartbeat =
        TokenEventCodec.encodeToString(TokenEvent.heartbeat(7, "run", "p", 6, false, null))
            .replace("\"watermark\":6", "\"watermark\":" + big);
    Files.writeString(file, token + "\n" + heartbeat, StandardCharsets.UTF_8);
    List<String> corrupt = new ArrayList<>();
    List<ArchivedRecord> records = read(file, corrupt);
    assertEquals(List.of(), corrupt);
    assertEquals(2, records.size());
    for (ArchivedRecord r : records) {
      assertNull(r.heartbeat(), "no heartbeat to fan out without a watermark");
      assertThrows(TokenEventFormatException.class, r::event);
    }
  }

  @Test
  void aTimeRangeKeepsRecordsWhoseTimestampIsInside() throws Exception {
    Path file = dir.resolve("range.jsonl.zst");
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      for (int i = 0; i < 10; i++) {
        writer.write("r", 0, i, 1_000 + i, TokenEventCodec.encode(token(1_000 + i, "r", i)));
      }
    }
    ArchiveReader.Archive archive =
        ArchiveReader.read(
            file,
            ArchiveReader.Options.all(
                    (line, reason) -> {
                      throw new AssertionError(reason);
                    })
                .withRange(1_003L, 1_007L));
    assertEquals(List.of(3L, 4L, 5L, 6L), archive.records().stream().map(r -> r.offset()).toList());
    assertEquals(6, archive.outsideRange());
    assertEquals(10, archive.lines());
  }

  @Test
  void linesLongerThanABlockAndManyLinesReadWhole() throws Exception {
    Path file = dir.resolve("big.jsonl.lz4");
    // one value larger than a block (256 KB; 4 MB before), with a model past its 256 characters
    String longModel = "m".repeat(5 << 20);
    int n = 40_000;
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      for (int i = 0; i < n; i++) {
        TokenEvent e =
            i == 17
                ? TokenEvent.token(
                    T0 + 2_000 + i, "run", "r", longModel, null, 1L, i, 1, TokenKind.CONTENT, "p")
                : token(T0 + 2_000 + i, "r", i);
        writer.write("r", 0, i, e.ts(), TokenEventCodec.encode(e));
      }
      assertEquals(n, writer.written());
    }
    List<ArchivedRecord> records = read(file, new ArrayList<>());
    assertEquals(n, records.size());
    for (int i = 0; i < n; i++) {
      assertEquals(i, records.get(i).offset());
      assertEquals(i + 1, records.get(i).line());
    }
    // the line read whole: its value is the event as written, which the decoder then refuses
    assertTrue(
        new String(records.get(17).valueBytes(), StandardCharsets.UTF_8).contains(longModel));
    TokenEventFormatException tooLong =
        assertThrows(TokenEventFormatException.class, () -> records.get(17).event());
    assertTrue(
        tooLong
            .getMessage()
            .startsWith("not a token event: model is 5242880 characters, more than 256"),
        tooLong.getMessage());
    assertEquals(token(T0 + 2_000 + 18, "r", 18), records.get(18).event());
  }
}
