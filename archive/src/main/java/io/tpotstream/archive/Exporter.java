package io.tpotstream.archive;

import io.tpotstream.common.DurableFiles;
import io.tpotstream.common.kafka.PlainReader;
import io.tpotstream.common.progress.Progress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Copies a topic's records, with key, partition, offset and record timestamp, into an archive file
 * ({@link ArchiveWriter}: the compression follows the file's name). Reads committed records only,
 * without a consumer group (partitions are assigned, not subscribed), in large fetches; keys and
 * values stay bytes, the lines are made in a second thread and compressed in a third.
 *
 * <p>The partitions are merged into the replay order as they are read ({@link ExportOrder}), so
 * that {@code replay} can send the archive while it reads it; a partition that runs ahead of the
 * others is paused until they catch up. Beside the archive goes its {@link ArchiveManifest}: the
 * topic, the offsets read, the record count, the file's size and checksum, whether the lines came
 * out in the replay order and whether the export reached its end (a stop before it, or records
 * deleted by retention before they were read, leave an archive marked incomplete). With {@code
 * --follow} the lines are written as they are polled (a partition without new records must not hold
 * the others back), in partition order; with a roll size or age too, into consecutive segments,
 * each a whole archive with its own manifest ({@link RollingArchive}).
 */
public final class Exporter {
  /**
   * What to export.
   *
   * @param fromMs only records with a timestamp at or after this (epoch ms), or null
   * @param toMs only records with a timestamp before this, or null
   * @param compressionLevel gzip or zstd level, or null for the format's default
   * @param rollBytes with follow: a segment is finished once its file passes this many bytes, or
   *     null
   * @param rollEvery with follow: a segment is finished this long after its first record, or null
   */
  public record Settings(
      Properties client,
      String topic,
      Path out,
      Long fromMs,
      Long toMs,
      boolean follow,
      Integer compressionLevel,
      Long rollBytes,
      Duration rollEvery) {
    public Settings {
      if ((rollBytes != null || rollEvery != null) && !follow) {
        throw new IllegalArgumentException(
            "--roll-size and --roll-every need --follow (an export to its end is one archive in"
                + " the replay order)");
      }
      if ((rollBytes != null && rollBytes <= 0)
          || (rollEvery != null && (rollEvery.isNegative() || rollEvery.isZero()))) {
        throw new IllegalArgumentException("--roll-size and --roll-every must be above 0");
      }
    }

    public Settings(
        Properties client,
        String topic,
        Path out,
        Long fromMs,
        Long toMs,
        boolean follow,
        Integer compressionLevel) {
      this(client, topic, out, fromMs, toMs, follow, compressionLevel, null, null);
    }

    public Settings(
        Properties client, String topic, Path out, Long fromMs, Long toMs, boolean follow) {
      this(client, topic, out, fromMs, toMs, follow, null);
    }

    /** True when the export writes segments rather than one archive. */
    public boolean rolls() {
      return rollBytes != null || rollEvery != null;
    }
  }

  private final Settings settings;
  private final Progress progress;
  private final AtomicBoolean stopped = new AtomicBoolean();
  private volatile ArchiveManifest written;
  private volatile List<ArchiveManifest> segments = List.of();

  public Exporter(Settings settings, Progress progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /**
   * The manifest of the archive {@link #run()} wrote, once it returned: {@link
   * ArchiveManifest#whyIncomplete()} says whether it is whole.
   */
  public ArchiveManifest manifest() {
    return written;
  }

  /**
   * The manifests of the archives {@link #run()} wrote, once it returned: the one archive's, or
   * each segment's in order (also those finished before a failure).
   */
  public List<ArchiveManifest> manifests() {
    return segments;
  }

  /** Asks a running {@link #run()} (with --follow) to finish after its current poll. */
  public void stop() {
    stopped.set(true);
  }

  /** The consumer settings for reading a topic in bulk. */
  static Properties consumerProperties(Properties client) {
    Properties p = new Properties();
    // bulk reading: large fetches so that each poll returns many batches of every partition
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 << 20));
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    p.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, Integer.toString(1 << 20));
    p.putAll(client); // the user's properties win over the bulk defaults
    return PlainReader.settings(p);
  }

  /**
   * Records that may wait for the merge (a few hundred bytes each), shared among the partitions:
   * one that runs ahead with more than its share waiting is paused, and resumed below half of it. A
   * share is at least 10,000 records, so above 30 partitions the total may pass the budget.
   */
  private static final int WAITING_BUDGET = 300_000;

  /**
   * Exports and returns the number of records written. The file is written under a temporary name
   * beside {@code out} ({@code .NAME.partial}, which every reader refuses), fsynced, and renamed to
   * it once its manifest is written and fsynced beside it. A failure leaves no file and the
   * previous one, if any, as it was; a {@link #stop()} before the end leaves the file with a
   * manifest that marks it incomplete.
   */
  public long run() throws IOException {
    Properties p = consumerProperties(settings.client());
    // a record deleted by retention before it is read is a gap to report, never a silent jump
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    long startNs = System.nanoTime();
    Path out = settings.out();
    Path partial = out.resolveSibling("." + out.getFileName() + ".partial");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      List<PartitionInfo> infos = consumer.partitionsFor(settings.topic(), Duration.ofSeconds(30));
      if (infos == null || infos.isEmpty()) {
        throw new IllegalArgumentException(
            "topic " + settings.topic() + " does not exist at " + p.get("bootstrap.servers"));
      }
      List<TopicPartition> partitions = new ArrayList<>();
      infos.forEach(i -> partitions.add(new TopicPartition(i.topic(), i.partition())));
      partitions.sort(Comparator.comparingInt(TopicPartition::partition));
      List<Integer> numbers = partitions.stream().map(TopicPartition::partition).toList();
      if (settings.rolls()) {
        return runRolling(consumer, partitions, numbers, startNs);
      }
      ArchiveWriter writer =
          new ArchiveWriter(partial, ArchiveCompression.of(out), settings.compressionLevel());
      ExportOrder order = settings.follow() ? null : new ExportOrder(numbers, writer::write);
      Lines lines = new Lines(writer, null, order, settings.fromMs(), settings.toMs());
      Read read;
      ArchiveManifest manifest;
      try {
        try {
          read = export(consumer, partitions, lines, order);
        } finally {
          lines.close(); // the file is fsynced when it is closed
        }
        manifest =
            new ArchiveManifest(
                ArchiveManifest.FORMAT,
                settings.topic(),
                numbers,
                lines.written(),
                Files.size(partial),
                order != null && order.inReplayOrder()
                    ? ArchiveManifest.REPLAY_ORDER
                    : ArchiveManifest.PARTITION_ORDER,
                settings.fromMs(),
                settings.toMs(),
                read.complete(),
                ArchiveManifest.hex(writer.crc32c()),
                read.offsets(),
                read.gaps());
        publish(partial, out, manifest);
      } catch (IOException | RuntimeException e) {
        Files.deleteIfExists(partial);
        throw e;
      }
      written = manifest;
      segments = List.of(manifest);
      double seconds = (System.nanoTime() - startNs) / 1e9;
      String missing = manifest.whyIncomplete();
      progress.finish(
          String.format(
              Locale.ROOT,
              "export: %s, %d records from %s (%d partitions) written to %s in %.1f s (%,.0f"
                  + " records/s)%s%s",
              missing == null ? "done" : "INCOMPLETE",
              lines.written(),
              settings.topic(),
              partitions.size(),
              out,
              seconds,
              lines.written() / Math.max(seconds, 1e-3),
              lines.skipped() > 0 ? ", " + lines.skipped() + " outside --from/--to" : "",
              missing == null
                  ? ""
                  : "; its manifest marks it incomplete ("
                      + missing
                      + "): replay and stats"
                      + " refuse it unless given --allow-incomplete"));
      return lines.written();
    } finally {
      progress.close();
    }
  }

  /**
   * Gives the archive {@code partial}, closed and fsynced, its name {@code out} once {@code
   * manifest} is written beside it.
   */
  static void publish(Path partial, Path out, ArchiveManifest manifest) throws IOException {
    // the manifest first: a crash between the two renames leaves the previous archive beside a
    // manifest that does not describe it (refused as changed), never an archive without one
    manifest.write(out);
    Files.move(partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    DurableFiles.syncDirectory(out);
  }

  /** {@link #run()} with --follow and a roll size or age: segments, each a whole archive. */
  private long runRolling(
      KafkaConsumer<byte[], byte[]> consumer,
      List<TopicPartition> partitions,
      List<Integer> numbers,
      long startNs)
      throws IOException {
    RollingArchive archive =
        new RollingArchive(
            settings.out(),
            new RollingArchive.Settings(
                settings.topic(),
                settings.fromMs(),
                settings.toMs(),
                settings.compressionLevel(),
                settings.rollBytes(),
                settings.rollEvery()),
            numbers,
            progress);
    Lines lines = new Lines(null, archive, null, settings.fromMs(), settings.toMs());
    List<ArchiveManifest> manifests;
    try {
      Read read;
      try {
        read = export(consumer, partitions, lines, null);
      } finally {
        lines.close();
      }
      Map<Integer, Long> positions = new HashMap<>();
      read.offsets().forEach(o -> positions.put(o.partition(), o.to()));
      manifests = archive.close(positions, read.complete());
    } catch (IOException | RuntimeException e) {
      segments = archive.finished();
      archive.abandon();
      throw e;
    }
    segments = manifests;
    written = manifests.get(manifests.size() - 1);
    double seconds = (System.nanoTime() - startNs) / 1e9;
    List<String> incomplete = new ArrayList<>();
    for (int i = 0; i < manifests.size(); i++) {
      String missing = manifests.get(i).whyIncomplete();
      if (missing != null) {
        incomplete.add(RollingArchive.segment(settings.out(), i + 1) + ": " + missing);
      }
    }
    progress.finish(
        String.format(
            Locale.ROOT,
            "export: %s, %d records from %s (%d partitions) written to %d segments, %s to %s, in"
                + " %.1f s (%,.0f records/s)%s%s",
            incomplete.isEmpty() ? "done" : "INCOMPLETE",
            archive.written(),
            settings.topic(),
            partitions.size(),
            manifests.size(),
            RollingArchive.segment(settings.out(), 1),
            archive.last(),
            seconds,
            archive.written() / Math.max(seconds, 1e-3),
            lines.skipped() > 0 ? ", " + lines.skipped() + " outside --from/--to" : "",
            incomplete.isEmpty()
                ? ""
                : "; their manifests mark these incomplete ("
                    + String.join("; ", incomplete)
                    + "): replay and stats refuse them unless given --allow-incomplete"));
    return archive.written();
  }

  /**
   * How far an export read: whether it reached the end it set out for, each partition's offsets,
   * and what retention deleted before it was read.
   */
  private record Read(
      boolean complete, List<ArchiveManifest.Offsets> offsets, List<ArchiveManifest.Gap> gaps) {}

  /** Reads the partitions until their end offsets at the start (or until stopped, following). */
  private Read export(
      KafkaConsumer<byte[], byte[]> consumer,
      List<TopicPartition> partitions,
      Lines lines,
      ExportOrder order)
      throws IOException {
    consumer.assign(partitions);
    Map<TopicPartition, Long> start = seekToStart(consumer, partitions);
    lines.startAt(start);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    long span = 0;
    for (TopicPartition tp : partitions) {
      span += Math.max(0, end.get(tp) - start.get(tp));
    }
    progress.phase(
        (settings.follow() ? "following " : "reading ") + settings.topic(),
        "records",
        settings.follow() ? -1 : span);
    long lastFractionNs = 0;
    Set<TopicPartition> finished = new HashSet<>();
    List<ArchiveManifest.Gap> gaps = new ArrayList<>();
    int pauseAbove = Math.max(10_000, WAITING_BUDGET / partitions.size());
    boolean reachedEnd = false;
    int gapsSent = 0;
    while (!stopped.get()) {
      if (!settings.follow() && caughtUp(consumer, end)) {
        progress.fraction(span, span); // the last look, up to 200 ms old, said less
        reachedEnd = true;
        break;
      }
      lines.check(); // a failed lines thread says so now, not when a record next arrives
      ConsumerRecords<byte[], byte[]> polled;
      try {
        polled = consumer.poll(Duration.ofMillis(500));
      } catch (OffsetOutOfRangeException e) {
        skipDeleted(consumer, e.offsetOutOfRangePartitions(), gaps);
        continue;
      }
      List<List<ConsumerRecord<byte[], byte[]>>> records = new ArrayList<>();
      int count = 0;
      for (TopicPartition tp : polled.partitions()) {
        List<ConsumerRecord<byte[], byte[]>> some = polled.records(tp);
        if (!settings.follow()) {
          // the export is of the records there at its start: later ones, written meanwhile or
          // committed by a transaction open then, are left out
          some = before(some, end.get(tp));
        }
        records.add(some);
        count += some.size();
      }
      List<Integer> nowFinished = new ArrayList<>();
      if (order != null) {
        for (TopicPartition tp : partitions) {
          if (!finished.contains(tp) && consumer.position(tp) >= end.get(tp)) {
            finished.add(tp);
            nowFinished.add(tp.partition());
            consumer.pause(List.of(tp)); // nothing more to fetch from it
          }
        }
        pauseTheOnesAhead(consumer, partitions, finished, order, pauseAbove);
      }
      List<ArchiveManifest.Gap> newGaps = List.copyOf(gaps.subList(gapsSent, gaps.size()));
      gapsSent = gaps.size();
      // rolling by age, a quiet poll still lets the open segment be finished
      if (count > 0 || !nowFinished.isEmpty() || !newGaps.isEmpty() || settings.rolls()) {
        lines.add(new Batch(records, nowFinished, newGaps));
      }
      progress.add(count);
      if (!settings.follow() && System.nanoTime() - lastFractionNs > 200_000_000L) {
        // offsets include transaction markers and skipped records: the percent follows them
        long read = 0;
        for (TopicPartition tp : partitions) {
          read += Math.max(0, Math.min(consumer.position(tp), end.get(tp)) - start.get(tp));
        }
        progress.fraction(read, span);
        lastFractionNs = System.nanoTime();
      }
    }
    List<ArchiveManifest.Offsets> offsets = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      long to = consumer.position(tp);
      offsets.add(
          settings.follow()
              ? new ArchiveManifest.Offsets(tp.partition(), start.get(tp), to, null)
              : new ArchiveManifest.Offsets(
                  tp.partition(), start.get(tp), Math.min(to, end.get(tp)), end.get(tp)));
    }
    // following, a stop is the end the user chose
    boolean complete = (settings.follow() || reachedEnd) && gaps.isEmpty();
    return new Read(complete, offsets, gaps);
  }

  /**
   * Moves each partition whose next records retention deleted to its first offset, noting the
   * offsets skipped as a gap (and saying so now).
   */
  private void skipDeleted(
      KafkaConsumer<byte[], byte[]> consumer,
      Map<TopicPartition, Long> outOfRange,
      List<ArchiveManifest.Gap> gaps) {
    Map<TopicPartition, Long> first = consumer.beginningOffsets(outOfRange.keySet());
    for (Map.Entry<TopicPartition, Long> e : outOfRange.entrySet()) {
      TopicPartition tp = e.getKey();
      long from = e.getValue();
      long to = first.get(tp);
      if (to <= from) {
        throw new IllegalStateException(
            "export: partition "
                + tp
                + " has no offset "
                + from
                + " (its records start at "
                + to
                + "): was the topic deleted and created again while it was read?");
      }
      gaps.add(new ArchiveManifest.Gap(tp.partition(), from, to));
      progress.warn(
          String.format(
              Locale.ROOT,
              "export: WARNING partition %s offsets %,d to %,d were deleted by retention before"
                  + " they were read: the archive will be marked incomplete",
              tp,
              from,
              to));
      consumer.seek(tp, to);
    }
  }

  /** The records of {@code records} (one partition's, in offset order) below {@code end}. */
  private static List<ConsumerRecord<byte[], byte[]>> before(
      List<ConsumerRecord<byte[], byte[]>> records, long end) {
    int n = records.size();
    while (n > 0 && records.get(n - 1).offset() >= end) {
      n--;
    }
    return n == records.size() ? records : records.subList(0, n);
  }

  /**
   * Pauses a partition with more than {@code pauseAbove} records waiting for the merge while it
   * runs ahead of the others in time, and resumes it below half of that (a finished partition stays
   * paused).
   */
  private static void pauseTheOnesAhead(
      KafkaConsumer<byte[], byte[]> consumer,
      List<TopicPartition> partitions,
      Set<TopicPartition> finished,
      ExportOrder order,
      int pauseAbove) {
    Set<TopicPartition> paused = consumer.paused();
    for (TopicPartition tp : partitions) {
      if (finished.contains(tp)) {
        continue;
      }
      if (!paused.contains(tp) && order.runsAhead(tp.partition(), pauseAbove)) {
        consumer.pause(List.of(tp));
      } else if (paused.contains(tp) && !order.runsAhead(tp.partition(), pauseAbove / 2)) {
        consumer.resume(List.of(tp));
      }
    }
  }

  /**
   * Polled records (a list per partition), the partitions that delivered their last, and the
   * offsets found deleted by retention since the batch before.
   */
  private record Batch(
      List<List<ConsumerRecord<byte[], byte[]>>> records,
      List<Integer> finished,
      List<ArchiveManifest.Gap> gaps) {}

  /**
   * Turns polled batches into archive lines in a thread of its own ({@link HandOffThread}), so that
   * the consumer (which fetches and decompresses in the polling thread), the lines and the file's
   * compression each have a core; with an {@link ExportOrder}, through it; rolling, into the open
   * segment of a {@link RollingArchive} (which it closes then, not this).
   */
  private static final class Lines implements AutoCloseable {
    private final ArchiveWriter writer;
    private final RollingArchive segments;
    private final ExportOrder order;
    private final Long fromMs;
    private final Long toMs;
    private final HandOffThread<Batch> batches;
    private volatile long skipped;

    Lines(
        ArchiveWriter writer, RollingArchive segments, ExportOrder order, Long fromMs, Long toMs) {
      this.writer = writer;
      this.segments = segments;
      this.order = order;
      this.fromMs = fromMs;
      this.toMs = toMs;
      batches =
          new HandOffThread<>(
              "export-lines",
              4,
              writer != null ? writer.file() : "the export's segments",
              this::write,
              null);
    }

    /** The offsets the export starts from (before the first batch). */
    void startAt(Map<TopicPartition, Long> start) {
      if (segments != null) {
        Map<Integer, Long> byPartition = new HashMap<>();
        start.forEach((tp, offset) -> byPartition.put(tp.partition(), offset));
        segments.startAt(byPartition);
      }
    }

    void add(Batch batch) throws IOException {
      batches.put(batch);
    }

    /** Throws what stopped the lines thread, if anything did. */
    void check() throws IOException {
      batches.check();
    }

    long written() {
      return writer != null ? writer.written() : segments.written();
    }

    long skipped() {
      return skipped;
    }

    private void write(Batch batch) throws IOException {
      long outside = 0;
      for (List<ConsumerRecord<byte[], byte[]>> partition : batch.records()) {
        for (ConsumerRecord<byte[], byte[]> r : partition) {
          long timestamp = r.timestamp();
          if ((toMs != null && timestamp >= toMs) || (fromMs != null && timestamp < fromMs)) {
            outside++;
          } else if (order != null) {
            order.add(r);
          } else if (segments != null) {
            segments.write(r);
          } else {
            writer.write(r);
          }
        }
      }
      if (order != null) {
        for (int partition : batch.finished()) {
          order.finish(partition);
        }
        order.writeReady();
      }
      skipped += outside;
      if (segments != null) {
        batch.gaps().forEach(segments::gap);
        segments.rollIfDue();
      }
    }

    /**
     * Writes what is queued (and, stopped before the end, what waits for the merge) and finishes
     * the file.
     */
    @Override
    public void close() throws IOException {
      try {
        batches.close();
        if (order != null) {
          order.finishAll();
        }
      } finally {
        if (writer != null) {
          writer.close();
        }
      }
    }
  }

  /** Seeks every partition to where the export starts and returns those offsets. */
  private Map<TopicPartition, Long> seekToStart(
      KafkaConsumer<byte[], byte[]> consumer, List<TopicPartition> partitions) {
    Map<TopicPartition, Long> start = new HashMap<>();
    if (settings.fromMs() == null) {
      start.putAll(consumer.beginningOffsets(partitions));
    } else {
      Map<TopicPartition, Long> query = new HashMap<>();
      partitions.forEach(tp -> query.put(tp, settings.fromMs()));
      Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      for (TopicPartition tp : partitions) {
        OffsetAndTimestamp at = found.get(tp);
        start.put(tp, at == null ? ends.get(tp) : at.offset());
      }
    }
    start.forEach(consumer::seek);
    return start;
  }

  private static boolean caughtUp(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      // position() passes transaction markers too, so a committed end offset is always reached
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
