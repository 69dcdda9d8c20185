package io.tpotstream.archive;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.tpotstream.common.DurableFiles;
import io.tpotstream.common.Json;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * What {@code tpot export} knows about the archive it wrote, in a file beside it ({@code
 * run.jsonl.zst.manifest.json}), written and fsynced before the archive gets its name: the topic,
 * its partitions, the offsets read of each, the record count, the file's size and CRC-32C, the
 * order of its lines, and whether the export reached its end ({@code complete}). An export stopped
 * before the end (Ctrl-C, SIGTERM) or that found records deleted by retention while it read ({@code
 * gaps}) is incomplete, and {@link #check} refuses it unless told.
 *
 * <p>{@code replay} and {@code stats} read an archive whose lines are in the replay order as a
 * stream when the manifest still describes the file; any other archive is read whole and sorted
 * first: a file written by hand or by kcat (no manifest), or one in partition order ({@code
 * --follow} writes records as they are polled; a partition that went back in time by more than a
 * second).
 *
 * @param manifest the format, {@value #FORMAT}
 * @param topic the topic exported
 * @param partitions its partitions read
 * @param records lines written
 * @param bytes the archive's size in bytes
 * @param order {@value #REPLAY_ORDER} when the lines are in the replay order, {@value
 *     #PARTITION_ORDER} when only each partition's lines are in offset order
 * @param fromMs the export's --from (epoch ms), or null
 * @param toMs the export's --to (epoch ms), or null
 * @param complete true when the export read every partition to its end (with --follow: to where it
 *     was stopped) and retention deleted nothing before it was read
 * @param crc32c the CRC-32C of the archive's bytes, as 8 hex digits
 * @param offsets per partition, the offsets read
 * @param gaps the offsets retention deleted while the export read them (none when complete)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ArchiveManifest(
    String manifest,
    String topic,
    List<Integer> partitions,
    long records,
    long bytes,
    String order,
    Long fromMs,
    Long toMs,
    boolean complete,
    String crc32c,
    List<Offsets> offsets,
    List<Gap> gaps) {
  public static final String FORMAT = "tpot-archive/2";
  public static final String REPLAY_ORDER = "replay";
  public static final String PARTITION_ORDER = "partition";

  /**
   * The offsets of one partition an export read.
   *
   * @param from the first offset it read from
   * @param to the offset it had reached when it finished: every record before it is in the file
   *     (but those in {@link ArchiveManifest#gaps})
   * @param end the partition's end offset when the export started, which a whole export reaches;
   *     null with --follow (no end)
   */
  public record Offsets(int partition, long from, long to, Long end) {
    boolean reachedEnd() {
      return end == null || to >= end;
    }
  }

  /** Offsets {@code from} (inclusive) to {@code to} (exclusive) of a partition, never read. */
  public record Gap(int partition, long from, long to) {}

  public ArchiveManifest {
    partitions = List.copyOf(partitions);
    offsets = offsets == null ? List.of() : List.copyOf(offsets);
    gaps = gaps == null ? List.of() : List.copyOf(gaps);
  }

  /**
   * A manifest of a complete archive, without its checksum yet (see {@link #withChecksumOf}) or
   * offsets: for files written by other means than an export (tests, tools).
   */
  public ArchiveManifest(
      String manifest,
      String topic,
      List<Integer> partitions,
      long records,
      long bytes,
      String order,
      Long fromMs,
      Long toMs) {
    this(manifest, topic, partitions, records, bytes, order, fromMs, toMs, true, null, null, null);
  }

  /** This manifest with the CRC-32C of {@code archive} as it is now. */
  public ArchiveManifest withChecksumOf(Path archive) throws IOException {
    return new ArchiveManifest(
        manifest,
        topic,
        partitions,
        records,
        bytes,
        order,
        fromMs,
        toMs,
        complete,
        crc32c(archive),
        offsets,
        gaps);
  }

  /** Where the manifest of {@code archive} is. */
  public static Path of(Path archive) {
    return archive.resolveSibling(archive.getFileName() + ".manifest.json");
  }

  /** Removes the manifest of {@code archive}, if any (a new export is about to replace it). */
  public static void remove(Path archive) throws IOException {
    Files.deleteIfExists(of(archive));
  }

  /**
   * Writes this manifest beside {@code archive}, whole or not at all: under a temporary name,
   * fsynced, renamed into place and the directory fsynced, so that a power loss leaves either the
   * previous manifest or this one, never an empty file behind a name.
   */
  public void write(Path archive) throws IOException {
    DurableFiles.writeWhole(
        of(archive),
        Json.MAPPER.writer().with(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(this));
  }

  /**
   * True when {@code file} is the temporary name an export writes under ({@code .NAME.partial}): an
   * export that has not finished, or that a crash or kill -9 stopped.
   */
  public static boolean isUnfinishedExport(Path file) {
    String name = file.getFileName().toString();
    return name.startsWith(".")
        && name.endsWith(".partial")
        && name.length() > ".partial".length() + 1;
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
   * The manifest of {@code archive}, checked before anything is read from it or sent: an archive
   * whose bytes are not those its manifest describes is refused (nothing read yet, nothing sent),
   * and so is an incomplete one unless {@code allowIncomplete} (then {@code say} warns). So is an
   * archive whose completeness cannot be told: a manifest that cannot be read (empty, cut, not
   * JSON, another format), or none beside a file of export records (deleted, or never written: an
   * export killed before it finished writes it before the archive gets its name). An export's
   * temporary file ({@code .NAME.partial}) is always refused. A file of bare token events without a
   * manifest (kcat's, or written by hand) is read as it is.
   *
   * @param command the command, for the messages ({@code replay}, {@code stats})
   * @throws IllegalStateException naming what is wrong and what to do
   */
  public static Optional<ArchiveManifest> check(
      Path archive, String command, boolean allowIncomplete, Consumer<String> say)
      throws IOException {
    if (isUnfinishedExport(archive)) {
      throw new IllegalStateException(
          archive
              + " is the temporary file of an export that did not finish (tpot export writes"
              + " .NAME.partial and renames it to NAME once it is closed; a kill or a crash left"
              + " this one, perhaps cut in the middle of a compressed block): nothing was read or"
              + " sent. Export it again");
    }
    Optional<ArchiveManifest> found = read(archive);
    if (found.isEmpty()) {
      String unknown = unknownCompleteness(archive);
      if (unknown != null) {
        if (!allowIncomplete) {
          throw new IllegalStateException(
              unknown
                  + ": whether "
                  + archive
                  + " is whole cannot be told; nothing was read or sent. Export it again, or"
                  + " pass --allow-incomplete to "
                  + command
                  + " what it holds");
        }
        say.accept(
            "tpot "
                + command
                + ": WARNING "
                + unknown
                + ": "
                + archive
                + " is read as a file of unknown completeness");
      }
      return found;
    }
    ArchiveManifest m = found.get();
    long size = Files.size(archive);
    if (size != m.bytes()) {
      throw new IllegalStateException(
          archive
              + " has "
              + size
              + " bytes and its manifest was written for "
              + m.bytes()
              + ": the file changed after the export (copied while written? cut?); nothing was"
              + " read. Export it again, or delete "
              + of(archive).getFileName()
              + " and pass --allow-incomplete to read it as a file of unknown completeness");
    }
    String crc = crc32c(archive);
    if (!crc.equals(m.crc32c())) {
      throw new IllegalStateException(
          archive
              + " is damaged: its CRC-32C is "
              + crc
              + " and its manifest says "
              + m.crc32c()
              + " (a byte changed since the export); nothing was read or sent. Export it"
              + " again");
    }
    String missing = m.whyIncomplete();
    if (missing != null) {
      if (!allowIncomplete) {
        throw new IllegalStateException(
            archive
                + " is incomplete: "
                + missing
                + ". Export it again, or pass --allow-incomplete to "
                + command
                + " what it holds");
      }
      say.accept("tpot " + command + ": WARNING " + archive + " is incomplete: " + missing);
    }
    return found;
  }

  /**
   * Why the completeness of {@code archive}, which has no readable manifest, cannot be told, or
   * null when it need not be (a file of bare token events, a pipe).
   */
  private static String unknownCompleteness(Path archive) {
    Path manifest = of(archive);
    if (Files.exists(manifest)) {
      long size;
      try {
        size = Files.size(manifest);
      } catch (IOException e) {
        size = -1;
      }
      return manifest
          + (size == 0
              ? " is empty (a crash or a full disk while it was written?)"
              : " cannot be read as a manifest of this version (" + FORMAT + ")");
    }
    return holdsExportRecords(archive) ? "its manifest " + manifest + " is missing" : null;
  }

  /**
   * True when the first line of {@code file} (a regular file; a pipe is not looked at, its line
   * would be taken from the command) is an export record, {@code {"key":…,"partition":…,…}}.
   */
  static boolean holdsExportRecords(Path file) {
    if (!Files.isRegularFile(file)) {
      return false;
    }
    try (InputStream raw = Files.newInputStream(file);
        BufferedReader lines =
            new BufferedReader(
                new InputStreamReader(
                    ArchiveCompression.of(file).decompress(raw), StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (!line.isBlank()) {
          JsonNode first = Json.MAPPER.readTree(line);
          return first != null
              && first.isObject()
              && first.has("partition")
              && first.has("offset")
              && first.has("value");
        }
      }
    } catch (IOException | RuntimeException e) {
      // unreadable or not JSON: the reading says so, line by line
    }
    return false;
  }

  /** Null when the archive holds everything its export set out to read, else what is missing. */
  public String whyIncomplete() {
    List<String> parts = new ArrayList<>();
    if (!complete) {
      List<String> short_ = new ArrayList<>();
      long missing = 0;
      for (Offsets o : offsets) {
        if (!o.reachedEnd()) {
          short_.add(
              String.format(
                  Locale.ROOT, "partition %d offsets %,d to %,d", o.partition(), o.to(), o.end()));
          missing += o.end() - o.to();
        }
      }
      parts.add(
          short_.isEmpty()
              ? "the export was stopped before it finished"
              : String.format(
                  Locale.ROOT,
                  "the export was stopped before the end, %,d records in (up to %,d offsets not"
                      + " read: %s)",
                  records,
                  missing,
                  String.join(", ", short_)));
    }
    for (Gap g : gaps) {
      parts.add(
          String.format(
              Locale.ROOT,
              "partition %d offsets %,d to %,d were deleted by retention before the export read"
                  + " them",
              g.partition(),
              g.from(),
              g.to()));
    }
    return parts.isEmpty() ? null : String.join("; ", parts);
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

  /** The CRC-32C of {@code file}'s bytes, as 8 hex digits. */
  public static String crc32c(Path file) throws IOException {
    CRC32C crc = new CRC32C();
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      while (channel.read(buffer) >= 0) {
        buffer.flip();
        crc.update(buffer);
        buffer.clear();
      }
    }
    return hex(crc.getValue());
  }

  /** A CRC as the manifest writes it. */
  static String hex(long crc) {
    return String.format(Locale.ROOT, "%08x", crc);
  }
}
