package io.tpotstream.archive;

import com.fasterxml.jackson.databind.SerializationFeature;
import io.tpotstream.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;

/**
 * What {@code tpot export} knows about the archive it wrote, in a file beside it ({@code
 * run.jsonl.zst.manifest.json}): the topic, its partitions, the record count, the file's size and
 * the order of its lines. {@code replay} reads an archive whose lines are in the replay order as a
 * stream, sending while it reads, when the manifest still describes the file (same size); any other
 * archive is read whole and sorted first, as before: a file written by hand or by kcat (no
 * manifest), one changed since (another size), or one in partition order ({@code --follow} writes
 * records as they are polled; a partition that went back in time by more than a second).
 *
 * @param manifest the format, {@value #FORMAT}
 * @param topic the topic exported
 * @param partitions its partitions read
 * @param records lines written
 * @param bytes the archive's size in bytes when it was finished
 * @param order {@value #REPLAY_ORDER} when the lines are in the replay order, {@value
 *     #PARTITION_ORDER} when only each partition's lines are in offset order
 * @param fromMs the export's --from (epoch ms), or null
 * @param toMs the export's --to (epoch ms), or null
 */
public record ArchiveManifest(
    String manifest,
    String topic,
    List<Integer> partitions,
    long records,
    long bytes,
    String order,
    Long fromMs,
    Long toMs) {
  public static final String FORMAT = "tpot-archive/1";
  public static final String REPLAY_ORDER = "replay";
  public static final String PARTITION_ORDER = "partition";

  /** Where the manifest of {@code archive} is. */
  public static Path of(Path archive) {
    return archive.resolveSibling(archive.getFileName() + ".manifest.json");
  }

  /** Removes the manifest of {@code archive}, if any (a new export is about to replace it). */
  public static void remove(Path archive) throws IOException {
    Files.deleteIfExists(of(archive));
  }

  /** Writes this manifest beside {@code archive} (whole or not at all). */
  public void write(Path archive) throws IOException {
    Path target = of(archive);
    Path partial = target.resolveSibling(target.getFileName() + ".partial");
    Files.write(
        partial,
        Json.MAPPER.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(this));
    Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING);
  }

  /** The manifest beside {@code archive}, or empty when there is none or it cannot be read. */
  public static Optional<ArchiveManifest> read(Path archive) {
    try {
      ArchiveManifest m =
          Json.MAPPER.readValue(Files.readAllBytes(of(archive)), ArchiveManifest.class);
      return FORMAT.equals(m.manifest()) ? Optional.of(m) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.empty(); // none, not ours, or damaged: the archive is read as any other
    }
  }

  /**
   * Null when {@code archive} can be read as a stream in the replay order by this manifest, else
   * why not, worded for a message.
   */
  public String whyNotStreamable(Path archive) throws IOException {
    if (!REPLAY_ORDER.equals(order)) {
      return "its lines are in partition order, not in the replay order (exported with --follow,"
          + " or a partition of "
          + topic
          + " went back in time by more than a second)";
    }
    long size = Files.size(archive);
    if (size != bytes) {
      return "the file has "
          + size
          + " bytes and its manifest was written for "
          + bytes
          + " (changed after the export?)";
    }
    return null;
  }
}
