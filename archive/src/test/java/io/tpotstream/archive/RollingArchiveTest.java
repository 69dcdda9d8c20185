package io.tpotstream.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.progress.Progress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The segments of a rolled export: named before the archive extensions, each finished as a whole
 * archive whose manifest names the offsets it holds, the next starting where it ended.
 */
class RollingArchiveTest {
  private static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  @Test
  void aSegmentIsNumberedBeforeTheArchiveExtensions() {
    assertEquals(
        dir.resolve("run.00001.jsonl.zst"),
        RollingArchive.segment(dir.resolve("run.jsonl.zst"), 1));
    assertEquals(
        dir.resolve("run.day1.00012.jsonl.gz"),
        RollingArchive.segment(dir.resolve("run.day1.jsonl.gz"), 12));
    assertEquals(
        dir.resolve("run.00002.JSONL"), RollingArchive.segment(dir.resolve("run.JSONL"), 2));
    assertEquals(dir.resolve("run.00003"), RollingArchive.segment(dir.resolve("run"), 3));
    assertEquals(
        dir.resolve("run.123456.lz4"), RollingArchive.segment(dir.resolve("run.lz4"), 123_456));
    assertEquals(
        ArchiveCompression.of(dir.resolve("run.jsonl.zst")),
        ArchiveCompression.of(RollingArchive.segment(dir.resolve("run.jsonl.zst"), 1)));
  }

  private static ConsumerRecord<byte[], byte[]> record(int partition, long offset) {
    TokenEvent e = TokenEvent.start(T0 + offset, "run", "req-" + offset, "m", null, null, "p");
    return new ConsumerRecord<>(
        "t",
        partition,
        offset,
        ("req-" + offset).getBytes(StandardCharsets.UTF_8),
        TokenEventCodec.encode(e));
  }

  private RollingArchive rolling(Path out) throws Exception {
    RollingArchive archive =
        new RollingArchive(
            out,
            new RollingArchive.Settings("t", null, null, null, null, Duration.ofNanos(1)),
            List.of(0, 1),
            Progress.quiet());
    archive.startAt(Map.of(0, 10L, 1, 0L));
    return archive;
  }

  @Test
  void eachSegmentIsAWholeArchiveOfTheOffsetsItHolds() throws Exception {
    Path out = dir.resolve("run.jsonl.zst");
    RollingArchive archive = rolling(out);
    archive.write(record(0, 10));
    archive.write(record(1, 0));
    archive.write(record(0, 12)); // 11 was a transaction marker
    archive.rollIfDue();
    archive.rollIfDue(); // nothing written since: no empty segment
    archive.gap(new ArchiveManifest.Gap(1, 1, 5));
    archive.write(record(1, 5));
    archive.rollIfDue();
    List<ArchiveManifest> manifests = archive.close(Map.of(0, 14L, 1, 6L), true);

    assertEquals(2, manifests.size());
    assertEquals(4, archive.written());
    ArchiveManifest first = manifests.get(0);
    assertEquals(3, first.records());
    assertEquals(null, first.whyIncomplete());
    assertEquals(
        List.of(
            new ArchiveManifest.Offsets(0, 10, 13, null),
            new ArchiveManifest.Offsets(1, 0, 1, null)),
        first.offsets());
    ArchiveManifest second = manifests.get(1);
    assertEquals(1, second.records());
    assertEquals(
        List.of(
            new ArchiveManifest.Offsets(0, 13, 13, null),
            new ArchiveManifest.Offsets(1, 1, 6, null)),
        second.offsets());
    assertEquals(List.of(new ArchiveManifest.Gap(1, 1, 5)), second.gaps());
    assertTrue(second.whyIncomplete().contains("partition 1 offsets 1 to 5 were deleted"));

    Path one = dir.resolve("run.00001.jsonl.zst");
    assertEquals(first, ArchiveManifest.check(one, "stats", false, s -> {}).orElseThrow());
    assertThrows(
        IllegalStateException.class,
        () -> ArchiveManifest.check(dir.resolve("run.00002.jsonl.zst"), "stats", false, s -> {}));
    try (Stream<Path> files = Files.list(dir)) {
      List<String> names = new ArrayList<>(files.map(f -> f.getFileName().toString()).toList());
      names.sort(null);
      assertEquals(
          List.of(
              "run.00001.jsonl.zst",
              "run.00001.jsonl.zst.manifest.json",
              "run.00002.jsonl.zst",
              "run.00002.jsonl.zst.manifest.json"),
          names);
    }
  }

  @Test
  void anEmptyLastSegmentIsNotWrittenAndTheOpenOneIsAPartialFile() throws Exception {
    Path out = dir.resolve("run.jsonl");
    RollingArchive archive = rolling(out);
    assertTrue(Files.exists(dir.resolve(".run.00001.jsonl.partial")));
    assertTrue(ArchiveManifest.isUnfinishedExport(dir.resolve(".run.00001.jsonl.partial")));
    archive.write(record(1, 0));
    archive.rollIfDue();
    List<ArchiveManifest> manifests = archive.close(Map.of(0, 10L, 1, 1L), true);

    assertEquals(1, manifests.size());
    assertTrue(Files.exists(dir.resolve("run.00001.jsonl")));
    assertTrue(Files.notExists(dir.resolve(".run.00002.jsonl.partial")));
    assertTrue(Files.notExists(dir.resolve("run.00002.jsonl")));
  }

  @Test
  void segmentsOfAnEarlierExportAreNeverMixedWithNewOnes() throws Exception {
    Path out = dir.resolve("run.jsonl");
    Files.writeString(dir.resolve("run.00001.jsonl"), "");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> rolling(out));
    assertTrue(e.getMessage().contains("run.00001.jsonl is there already"), e.getMessage());
  }
}
