package io.tpotstream.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The export's merge into the replay order ({@link ExportOrder}), the reader that streams such a
 * file ({@link ArchiveReader#stream}) and the manifest that says which files can be streamed.
 */
class ExportOrderTest {
  @TempDir Path dir;

  private static ConsumerRecord<byte[], byte[]> record(
      int partition, long offset, long ts, TokenEvent event) {
    byte[] key =
        event.requestId() == null ? null : event.requestId().getBytes(StandardCharsets.UTF_8);
    byte[] value = TokenEventCodec.encode(event);
    return new ConsumerRecord<>(
        "t",
        partition,
        offset,
        ts,
        TimestampType.CREATE_TIME,
        key == null ? -1 : key.length,
        value.length,
        key,
        value,
        new RecordHeaders(),
        Optional.empty());
  }

  private static ConsumerRecord<byte[], byte[]> token(int partition, long offset, long ts) {
    return record(
        partition,
        offset,
        ts,
        TokenEvent.token(
            ts,
            "run",
            "r" + partition,
            "m",
            null,
            1_000_000L,
            (int) offset,
            1,
            TokenKind.CONTENT,
            "p"));
  }

  private static void noCorruptLine(long line, String reason) {
    throw new AssertionError("line " + line + ": " + reason);
  }

  /** "partition/offset" of each record the merge wrote, in its order. */
  private static String placeOf(ConsumerRecord<byte[], byte[]> r) {
    return r.partition() + "/" + r.offset();
  }

  @Test
  void partitionsArrivingOneAfterAnotherAreWrittenInTheReplayOrder() throws Exception {
    List<String> written = new ArrayList<>();
    ExportOrder order = new ExportOrder(List.of(0, 1, 2), r -> written.add(placeOf(r)));
    // partition 0 arrives whole first, as a consumer's first fetch may give it
    order.add(token(0, 0, 10_000));
    order.add(token(0, 1, 13_000));
    order.add(token(0, 2, 16_000));
    order.finish(0);
    order.add(token(2, 0, 11_000));
    order.add(token(2, 1, 15_000));
    order.writeReady();
    // partition 1 has delivered nothing yet and could still deliver an earlier record
    assertEquals(List.of(), written);
    order.add(token(1, 0, 10_000));
    order.writeReady();
    // partition 1 is at 10 s: nothing before 9 s waits
    assertEquals(List.of(), written);
    order.add(token(1, 1, 14_000));
    order.writeReady();
    // every open partition is past 14 s: what comes before 13 s goes, 0/0 before 1/0 (same ts,
    // lower partition)
    assertEquals(List.of("0/0", "1/0", "2/0"), written);
    assertEquals(2, order.waiting(0));
    assertEquals(1, order.waiting(1));
    assertEquals(1, order.waiting(2));
    // partition 2 holds the others back (15 s, against 14 s for partition 1)
    assertTrue(order.runsAhead(0, 1));
    assertFalse(order.runsAhead(1, 0));
    assertFalse(order.runsAhead(0, 2));
    order.finish(1);
    assertEquals(List.of("0/0", "1/0", "2/0", "0/1"), written);
    order.finish(2);
    assertEquals(List.of("0/0", "1/0", "2/0", "0/1", "1/1", "2/1", "0/2"), written);
    assertTrue(order.inReplayOrder());
    assertEquals(0, order.waiting(0) + order.waiting(1) + order.waiting(2));
  }

  @Test
  void aFinalHeartbeatGoesAfterEveryOtherRecordOfItsMillisecond() throws Exception {
    List<String> written = new ArrayList<>();
    ExportOrder order = new ExportOrder(List.of(0, 1), r -> written.add(placeOf(r)));
    order.add(record(0, 0, 100, TokenEvent.heartbeat(100, "run", "p", 90, true, 5L)));
    order.add(token(1, 0, 100));
    order.finishAll();
    assertEquals(List.of("1/0", "0/0"), written);
    assertTrue(order.inReplayOrder());
  }

  @Test
  void aPartitionGoingBackInTimeByLessThanASecondIsPutInOrder() throws Exception {
    List<String> written = new ArrayList<>();
    ExportOrder order = new ExportOrder(List.of(0, 1), r -> written.add(placeOf(r)));
    order.add(token(0, 0, 1_000));
    order.add(token(0, 1, 900)); // an event loop that handed its event over later
    order.add(token(0, 2, 3_000));
    order.add(token(1, 0, 950));
    order.add(token(1, 1, 3_500));
    order.writeReady();
    assertEquals(List.of("0/1", "1/0", "0/0"), written);
    order.finishAll();
    assertEquals(List.of("0/1", "1/0", "0/0", "0/2", "1/1"), written);
    assertTrue(order.inReplayOrder());
  }

  @Test
  void aPartitionGoingBackInTimeByMoreIsWrittenWholeAndSaidToBeOutOfOrder() throws Exception {
    List<String> written = new ArrayList<>();
    ExportOrder order = new ExportOrder(List.of(0, 1), r -> written.add(placeOf(r)));
    order.add(token(0, 0, 5_000));
    order.add(token(1, 0, 5_500));
    order.add(token(1, 1, 8_000));
    order.add(token(0, 1, 7_000));
    order.writeReady();
    assertEquals(List.of("0/0", "1/0"), written);
    order.add(token(0, 2, 4_000)); // another producer, its clock 3 s behind
    order.finishAll();
    assertEquals(List.of("0/0", "1/0", "0/2", "0/1", "1/1"), written);
    assertFalse(order.inReplayOrder());
  }

  @Test
  void finishingEveryPartitionWritesWhatWaitsForOneThatNeverDelivered() throws Exception {
    List<String> written = new ArrayList<>();
    ExportOrder order = new ExportOrder(List.of(0, 1), r -> written.add(placeOf(r)));
    order.add(token(0, 0, 100));
    order.add(token(0, 1, 5_000));
    order.writeReady();
    assertEquals(List.of(), written);
    order.finishAll(); // stopped before partition 1 said anything
    assertEquals(List.of("0/0", "0/1"), written);
  }

  /** Writes the records through the merge into {@code file} and returns the merge. */
  private static ExportOrder export(Path file, List<ConsumerRecord<byte[], byte[]>> records)
      throws Exception {
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      ExportOrder order = new ExportOrder(List.of(0, 1, 2), writer::write);
      for (ConsumerRecord<byte[], byte[]> r : records) {
        order.add(r);
      }
      order.finishAll();
      return order;
    }
  }

  @Test
  void aMergedExportStreamsInTheSameOrderAsAFullReadSortsIt() throws Exception {
    Path file = dir.resolve("merged.jsonl.zst");
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      for (int i = 0; i < 1_000; i++) {
        // every 7th record 5 ms late: each partition goes back in time a little
        records.add(token(p, i, 1_000 + i * 3L - (i % 7 == 6 ? 5 : 0)));
      }
      records.add(
          record(p, 1_000, 4_000, TokenEvent.heartbeat(4_000, "run", "p", 3_990, true, 5L)));
    }
    assertTrue(export(file, records).inReplayOrder());
    List<String> streamed = new ArrayList<>();
    ArchiveReader.Streamed totals =
        ArchiveReader.stream(
            file,
            ArchiveReader.Options.all(ExportOrderTest::noCorruptLine),
            stretch -> stretch.forEach(r -> streamed.add(r.partition() + "/" + r.offset())));
    List<String> sorted =
        ArchiveReader.readInReplayOrder(file, (line, reason) -> {}).stream()
            .map(r -> r.partition() + "/" + r.offset())
            .toList();
    assertEquals(3_003, sorted.size());
    assertEquals(sorted, streamed);
    assertEquals(3_003, totals.records());
    assertEquals(3_003, totals.lines());
    // the three final heartbeats come last, after the tokens of their millisecond
    assertEquals(List.of("0/1000", "1/1000", "2/1000"), streamed.subList(3_000, 3_003));
  }

  /**
   * A value over several lines is re-encoded on one by the writer; its place in the order comes
   * from its ts as written, not from the record's timestamp, so the stream reads back what was
   * merged.
   */
  @Test
  void aValueOverSeveralLinesTakesItsPlaceByItsOwnTs() throws Exception {
    Path file = dir.resolve("pretty.jsonl");
    TokenEvent early =
        TokenEvent.token(500, "run", "r0", "m", null, 1_000_000L, 0, 1, TokenKind.CONTENT, "p");
    byte[] pretty =
        new String(TokenEventCodec.encode(early), StandardCharsets.UTF_8)
            .replace(",", ",\n  ")
            .getBytes(StandardCharsets.UTF_8);
    ConsumerRecord<byte[], byte[]> late = token(1, 0, 700);
    ConsumerRecord<byte[], byte[]> prettyRecord =
        new ConsumerRecord<>(
            "t",
            0,
            0,
            9_000, // a record timestamp far from the event's ts
            TimestampType.CREATE_TIME,
            2,
            pretty.length,
            "r0".getBytes(StandardCharsets.UTF_8),
            pretty,
            new RecordHeaders(),
            Optional.empty());
    List<String> written = new ArrayList<>();
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      ExportOrder order =
          new ExportOrder(
              List.of(0, 1),
              r -> {
                written.add(placeOf(r));
                writer.write(r);
              });
      order.add(late);
      order.add(prettyRecord);
      order.finishAll();
      assertTrue(order.inReplayOrder());
    }
    assertEquals(List.of("0/0", "1/0"), written);
    List<Long> streamed = new ArrayList<>();
    ArchiveReader.stream(
        file,
        ArchiveReader.Options.all(ExportOrderTest::noCorruptLine),
        stretch -> stretch.forEach(r -> streamed.add(r.ts())));
    assertEquals(List.of(500L, 700L), streamed);
  }

  @Test
  void aStreamStopsAtTheFirstLineOutOfTheReplayOrder() throws Exception {
    Path file = dir.resolve("unsorted.jsonl");
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      for (ConsumerRecord<byte[], byte[]> r :
          List.of(token(0, 0, 100), token(0, 1, 101), token(1, 0, 100))) {
        writer.write(r);
      }
    }
    ArchiveReader.NotInReplayOrder e =
        assertThrows(
            ArchiveReader.NotInReplayOrder.class,
            () -> ArchiveReader.stream(file, ArchiveReader.Options.all((l, r) -> {}), s -> {}));
    assertEquals(3, e.line());
    assertEquals(
        file + " line 3 comes before the line above it in the replay order", e.getMessage());
  }

  @Test
  void aManifestSaysWhenItsArchiveCanBeStreamed() throws Exception {
    Path file = dir.resolve("run.jsonl.gz");
    export(file, List.of(token(0, 0, 100), token(1, 0, 101)));
    long size = Files.size(file);
    assertEquals(Optional.empty(), ArchiveManifest.read(file));
    ArchiveManifest manifest = inReplayOrder(2, size);
    assertEquals(-1, ArchiveReader.expectedRecords(file));
    manifest.write(file);
    assertEquals(dir.resolve("run.jsonl.gz.manifest.json"), ArchiveManifest.of(file));
    assertEquals(Optional.of(manifest), ArchiveManifest.read(file));
    assertNull(manifest.whyNotStreamable(file));
    // the reader makes room for the manifest's count, and a count too low only means growing
    assertEquals(2, ArchiveReader.expectedRecords(file));
    inReplayOrder(1, size).write(file);
    assertEquals(1, ArchiveReader.expectedRecords(file));
    assertEquals(
        2, ArchiveReader.read(file, ArchiveReader.Options.all((l, r) -> {})).records().size());
    // a count no file of this size could hold is not trusted
    inReplayOrder(size + 1, size).write(file);
    assertEquals(-1, ArchiveReader.expectedRecords(file));
    manifest.write(file);

    Files.write(file, new byte[] {1}, java.nio.file.StandardOpenOption.APPEND);
    assertEquals(
        "the file has "
            + (size + 1)
            + " bytes and its manifest was written for "
            + size
            + " (changed after the export?)",
        manifest.whyNotStreamable(file));
    assertEquals(-1, ArchiveReader.expectedRecords(file));
    ArchiveManifest inPartitionOrder =
        new ArchiveManifest(
            ArchiveManifest.FORMAT,
            "t",
            List.of(0, 1),
            2,
            size + 1,
            ArchiveManifest.PARTITION_ORDER,
            null,
            null);
    assertEquals(
        "its lines are in partition order, not in the replay order (exported with --follow, or a"
            + " partition of t went back in time by more than a second)",
        inPartitionOrder.whyNotStreamable(file));

    Files.writeString(ArchiveManifest.of(file), "{not json");
    assertEquals(Optional.empty(), ArchiveManifest.read(file));
    ArchiveManifest.remove(file);
    assertFalse(Files.exists(ArchiveManifest.of(file)));
  }

  /** A manifest of topic {@code t}'s partitions 0 and 1 for a file in the replay order. */
  private static ArchiveManifest inReplayOrder(long records, long bytes) {
    return new ArchiveManifest(
        ArchiveManifest.FORMAT,
        "t",
        List.of(0, 1),
        records,
        bytes,
        ArchiveManifest.REPLAY_ORDER,
        null,
        7L);
  }
}
