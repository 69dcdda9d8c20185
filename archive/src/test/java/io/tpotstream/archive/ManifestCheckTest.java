package io.tpotstream.archive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An archive whose completeness cannot be told is refused by name unless allowed: a manifest that
 * is empty, garbage or missing beside export records, and an export's temporary file always.
 */
class ManifestCheckTest {
  private static final long T0 = 1_700_000_000_000L;

  @TempDir Path dir;

  /** A whole export of two request starts, with its manifest. */
  private Path export(String name) throws Exception {
    Path file = dir.resolve(name);
    try (ArchiveWriter writer = new ArchiveWriter(file)) {
      for (int i = 0; i < 2; i++) {
        TokenEvent e = TokenEvent.start(T0 + i, "run", "req-" + i, "m", null, null, "p");
        writer.write("req-" + i, 0, i, T0 + i, TokenEventCodec.encode(e));
      }
    }
    new ArchiveManifest(
            ArchiveManifest.FORMAT,
            "t",
            List.of(0),
            2,
            Files.size(file),
            ArchiveManifest.REPLAY_ORDER,
            null,
            null)
        .withChecksumOf(file)
        .write(file);
    return file;
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "{\"manifest\":\"tpot-archive/2\",\"rec", "garbage\n", "{}"})
  void aManifestThatCannotBeReadIsRefusedUnlessAllowed(String manifest) throws Exception {
    Path file = export("run.jsonl.zst");
    Files.writeString(ArchiveManifest.of(file), manifest);

    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> ArchiveManifest.check(file, "replay", false, line -> {}));
    String what =
        manifest.isEmpty()
            ? " is empty (a crash or a full disk while it was written?)"
            : " cannot be read as a manifest of this version (tpot-archive/2)";
    assertEquals(
        ArchiveManifest.of(file)
            + what
            + ": whether "
            + file
            + " is whole cannot be told; nothing was read or sent. Export it again, or pass"
            + " --allow-incomplete to replay what it holds",
        e.getMessage());

    List<String> said = new ArrayList<>();
    assertEquals(Optional.empty(), ArchiveManifest.check(file, "stats", true, said::add));
    assertEquals(
        List.of(
            "tpot stats: WARNING "
                + ArchiveManifest.of(file)
                + what
                + ": "
                + file
                + " is read as a file of unknown completeness"),
        said);
  }

  @Test
  void exportRecordsWithoutTheirManifestAreRefusedUnlessAllowed() throws Exception {
    Path file = export("run.jsonl.gz");
    Files.delete(ArchiveManifest.of(file));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> ArchiveManifest.check(file, "stats", false, line -> {}));
    assertEquals(
        "its manifest "
            + ArchiveManifest.of(file)
            + " is missing: whether "
            + file
            + " is whole cannot be told; nothing was read or sent. Export it again, or pass"
            + " --allow-incomplete to stats what it holds",
        e.getMessage());
    assertEquals(Optional.empty(), ArchiveManifest.check(file, "stats", true, line -> {}));
  }

  @Test
  void bareTokenEventsWithoutAManifestAreReadAsTheyAre() throws Exception {
    Path file = dir.resolve("kcat.jsonl");
    Files.write(
        file, TokenEventCodec.encode(TokenEvent.start(T0, "run", "req-0", "m", null, null, "p")));
    List<String> said = new ArrayList<>();
    assertEquals(Optional.empty(), ArchiveManifest.check(file, "replay", false, said::add));
    assertEquals(List.of(), said);
  }

  @Test
  void anExportsTemporaryFileIsRefusedByNameEvenWhenAllowed() throws Exception {
    Path file = export("run.jsonl.zst");
    Path partial = Files.copy(file, dir.resolve(".run.jsonl.zst.partial"));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> ArchiveManifest.check(partial, "stats", true, line -> {}));
    assertTrue(
        e.getMessage()
            .startsWith(
                partial
                    + " is the temporary file of an export that did not finish (tpot export"
                    + " writes .NAME.partial and renames it to NAME once it is closed"),
        e.getMessage());
  }

  @Test
  void aManifestIsWrittenWholeAndLeavesNoTemporaryFile() throws Exception {
    Path file = export("run.jsonl");
    assertTrue(ArchiveManifest.read(file).isPresent());
    try (var names = Files.list(dir)) {
      assertEquals(
          List.of("run.jsonl", "run.jsonl.manifest.json"),
          names.map(p -> p.getFileName().toString()).sorted().toList());
    }
    assertTrue(
        Files.readString(ArchiveManifest.of(file), StandardCharsets.UTF_8)
            .contains("\"complete\" : true"));
  }
}
