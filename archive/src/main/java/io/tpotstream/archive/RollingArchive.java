package io.tpotstream.archive;

import io.tpotstream.common.progress.Progress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The archive of {@code export --follow --roll-size/--roll-every}: consecutive segments ({@code
 * run.00001.jsonl.zst}, {@code run.00002.jsonl.zst}, … for {@code run.jsonl.zst}), each finished
 * exactly as a whole archive is (written as {@code .NAME.partial}, fsynced, its own manifest
 * written, then renamed), so that a crash loses at most the open segment. A segment holds, for each
 * partition, every record of the offsets {@code [from, to)} its manifest names, and the next
 * segment starts where it ended: it is complete unless retention deleted some of them ({@code
 * gaps}). Written by one thread, the export's lines thread.
 */
final class RollingArchive {
  /** Digits of a segment's number (more once there are more segments). */
  private static final String NUMBER = "%05d";

  private final Path out;
  private final Settings settings;
  private final List<Integer> partitions;
  private final Progress progress;
  private final List<ArchiveManifest> finished = new ArrayList<>();
  private Map<Integer, Long> from;
  private final Map<Integer, Long> next = new HashMap<>();
  private final List<ArchiveManifest.Gap> gaps = new ArrayList<>();
  private ArchiveWriter writer;
  private Path segment;
  private long firstRecordNs;
  private long recordsBefore;
  private boolean closed;

  /**
   * When a segment is finished: past {@code bytes} in its file (compressed), or {@code every} after
   * its first record; either may be null, not both.
   */
  record Settings(
      String topic, Long fromMs, Long toMs, Integer compressionLevel, Long bytes, Duration every) {}

  /**
   * Opens the first segment.
   *
   * @throws IllegalArgumentException when segments of an earlier export are there
   */
  RollingArchive(Path out, Settings settings, List<Integer> partitions, Progress progress)
      throws IOException {
    this.out = out;
    this.settings = settings;
    this.partitions = List.copyOf(partitions);
    this.progress = progress;
    Path first = segment(out, 1);
    if (Files.exists(first) || Files.exists(ArchiveManifest.of(first))) {
      throw new IllegalArgumentException(
          "export: "
              + first
              + " is there already, a segment of an earlier export: move the segments away or"
              + " choose another --file (segments of two exports must never pass as one series)");
    }
    open();
  }

  /**
   * The name of segment {@code number} of {@code out}: its number before the archive extensions, so
   * that the compression is still read from the end of the name ({@code run.jsonl.zst} gives {@code
   * run.00001.jsonl.zst}; {@code run} gives {@code run.00001}).
   */
  static Path segment(Path out, int number) {
    String name = out.getFileName().toString();
    String base = name;
    for (boolean cut = true; cut; ) {
      cut = false;
      for (String extension : Replayer.EXTENSIONS) {
        if (base.length() > extension.length()
            && base.toLowerCase(Locale.ROOT).endsWith(extension)) {
          base = base.substring(0, base.length() - extension.length());
          cut = true;
        }
      }
    }
    return out.resolveSibling(
        base + "." + String.format(Locale.ROOT, NUMBER, number) + name.substring(base.length()));
  }

  /** The offsets the export starts from, before the first record is written. */
  void startAt(Map<Integer, Long> start) {
    from = new HashMap<>(start);
  }

  void write(ConsumerRecord<byte[], byte[]> r) throws IOException {
    if (writer.written() == 0) {
      firstRecordNs = System.nanoTime();
    }
    writer.write(r);
    next.put(r.partition(), r.offset() + 1);
  }

  /** Offsets retention deleted before they were read: the open segment lacks them. */
  void gap(ArchiveManifest.Gap gap) {
    gaps.add(gap);
    next.merge(gap.partition(), gap.to(), Math::max);
  }

  /** Finishes the open segment and opens the next when it is past its size or its age. */
  void rollIfDue() throws IOException {
    if (writer.written() == 0) {
      return; // a quiet topic makes no empty segments
    }
    boolean big = settings.bytes() != null && writer.fileBytes() >= settings.bytes();
    boolean old =
        settings.every() != null && System.nanoTime() - firstRecordNs >= settings.every().toNanos();
    if (big || old) {
      Map<Integer, Long> to = new HashMap<>();
      for (int p : partitions) {
        to.put(p, next.getOrDefault(p, from.get(p)));
      }
      finish(to, true);
      from = to;
      next.clear();
      gaps.clear();
      open();
    }
  }

  /**
   * Finishes the open segment at the offsets the export reached, {@code positions} (the last
   * segment, unless it is empty and others were written), and returns every segment's manifest.
   */
  List<ArchiveManifest> close(Map<Integer, Long> positions, boolean complete) throws IOException {
    if (writer.written() == 0 && gaps.isEmpty() && !finished.isEmpty()) {
      writer.close();
      Files.deleteIfExists(writer.file());
    } else {
      Map<Integer, Long> to = new HashMap<>();
      for (int p : partitions) {
        to.put(p, Math.max(positions.get(p), next.getOrDefault(p, from.get(p))));
      }
      finish(to, complete);
    }
    closed = true;
    return List.copyOf(finished);
  }

  /** Removes the open segment's temporary file (the export failed); finished segments stay. */
  void abandon() throws IOException {
    try {
      writer.close();
    } catch (IOException | RuntimeException e) {
      // the export's own failure is the one to report
    }
    Files.deleteIfExists(writer.file());
  }

  /** Records written to every segment. */
  long written() {
    return closed ? recordsBefore : recordsBefore + writer.written();
  }

  /** The segments finished so far. */
  List<ArchiveManifest> finished() {
    return List.copyOf(finished);
  }

  private void open() throws IOException {
    segment = segment(out, finished.size() + 1);
    Path partial = segment.resolveSibling("." + segment.getFileName() + ".partial");
    writer = new ArchiveWriter(partial, ArchiveCompression.of(out), settings.compressionLevel());
  }

  /** Closes and fsyncs the open segment, writes its manifest, and gives it its name. */
  private void finish(Map<Integer, Long> to, boolean complete) throws IOException {
    writer.close();
    List<ArchiveManifest.Offsets> offsets = new ArrayList<>();
    for (int p : partitions) {
      offsets.add(new ArchiveManifest.Offsets(p, from.get(p), to.get(p), null));
    }
    ArchiveManifest manifest =
        new ArchiveManifest(
            ArchiveManifest.FORMAT,
            settings.topic(),
            partitions,
            writer.written(),
            Files.size(writer.file()),
            ArchiveManifest.PARTITION_ORDER,
            settings.fromMs(),
            settings.toMs(),
            complete && gaps.isEmpty(),
            ArchiveManifest.hex(writer.crc32c()),
            offsets,
            gaps);
    Exporter.publish(writer.file(), segment, manifest);
    finished.add(manifest);
    recordsBefore += writer.written();
    progress.println(
        String.format(
            Locale.ROOT,
            "export: %s %s, %,d records, %,d bytes",
            segment,
            manifest.whyIncomplete() == null ? "written" : "written INCOMPLETE",
            manifest.records(),
            manifest.bytes()));
  }

  /** The name of the segment last finished, or null. */
  Path last() {
    return finished.isEmpty() ? null : segment(out, finished.size());
  }
}
