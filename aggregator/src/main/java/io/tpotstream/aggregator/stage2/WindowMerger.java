package io.tpotstream.aggregator.stage2;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.stage1.Stage1Output;
import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.aggregator.state.WindowHealth;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;

/**
 * Stage 2: merges the partitions' partials per (series, window) in memory and finalises a window
 * once the {@code closedThrough} markers of all N input partitions reach its end, building each of
 * its summaries once, in sorted series order. N is kept in the state: a different N stops the
 * merge. A marker costs the minimum over N markers and the windows it completes, never a scan of
 * what is still open.
 *
 * <p>As stage 1, it keeps its working set in memory and writes what changed to a {@link ByteState}
 * with {@link #writeChanges} (inside every commit in the aggregator); {@link #load} rebuilds it.
 */
public final class WindowMerger {
  private static final long NONE = Long.MIN_VALUE;

  /** Series in the order of their UTF-8 bytes (Unicode code points), as summaries are emitted. */
  static final Comparator<String> SERIES_ORDER =
      (a, b) -> {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
          int ca = a.codePointAt(i);
          int cb = b.codePointAt(j);
          if (ca != cb) {
            return Integer.compare(ca, cb);
          }
          i += Character.charCount(ca);
          j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
      };

  // store keys: [tag][...]
  private static final Bytes PARTITIONS = Bytes.wrap(new byte[] {'N'});
  private static final Bytes FINALISED_THROUGH = Bytes.wrap(new byte[] {'f'});
  private static final Bytes DROPPED = Bytes.wrap(new byte[] {'d'});
  private static final Bytes SETTINGS = Bytes.wrap(new byte[] {'s'});
  private static final byte MARKER = 'm';
  private static final byte SERIES = 'w';
  private static final byte HEALTH = 'h';

  private final int partitions;
  private final long windowMs;
  private final SloSpec slo;
  private final long clientLagThresholdUs;
  private final String settings;
  private int storedPartitions = -1;
  private boolean partitionsChanged;
  private String storedSettings;
  private boolean settingsChanged;
  private final long[] markers;
  private final boolean[] markerChanged;
  private long finalisedThrough = NONE;
  private long dropped;
  private boolean progressChanged;
  private final TreeMap<Long, MergedWindow> windows = new TreeMap<>();

  /**
   * Where a series' partials are added up, one series after another: when its window is emitted,
   * and when it is written to the store (as one sum, as large as one partial at most).
   */
  private final WindowCounts sum = new WindowCounts();

  private final List<Bytes> deletions = new ArrayList<>();
  private final BinaryWriter writer = new BinaryWriter(512);
  private final WindowStats stats = new WindowStats(); // each summary is built in it, in turn
  private String lastWaiting = "";

  /**
   * @param partitions N, the input topic's partition count
   * @param windowMs the window length
   * @param clientLagThresholdUs a window is {@code clientSuspect} when its producers' own lag or
   *     pause passed this (µs)
   */
  public WindowMerger(int partitions, long windowMs, long clientLagThresholdUs) {
    this(partitions, windowMs, clientLagThresholdUs, SloSpec.NONE);
  }

  /**
   * As above, with {@code slo} evaluated on every summary it builds (no {@code slo} section when it
   * is empty).
   */
  public WindowMerger(int partitions, long windowMs, long clientLagThresholdUs, SloSpec slo) {
    this(partitions, windowMs, clientLagThresholdUs, slo, null);
  }

  /**
   * As above, with {@code settings} ({@link StateSettings#of}) kept in the state and checked by
   * {@link #open}; null: not kept (a merge that never restarts, as the offline statistics).
   */
  public WindowMerger(
      int partitions, long windowMs, long clientLagThresholdUs, SloSpec slo, String settings) {
    this.slo = slo == null ? SloSpec.NONE : slo;
    this.settings = settings;
    if (partitions < 1) {
      throw new IllegalArgumentException("the input topic must have at least one partition");
    }
    this.partitions = partitions;
    this.windowMs = windowMs;
    this.clientLagThresholdUs = clientLagThresholdUs;
    this.markers = new long[partitions];
    this.markerChanged = new boolean[partitions];
    Arrays.fill(markers, NONE);
  }

  /**
   * Records N and the settings on first use and checks them afterwards (after {@link #load}). A
   * state written before the settings were kept takes the current ones.
   *
   * @throws PartitionsChangedException when the state was built for another partition count
   * @throws SettingsChangedException when the state was built with other settings
   */
  public void open(String inputTopic) {
    if (storedPartitions < 0) {
      storedPartitions = partitions;
      partitionsChanged = true;
    } else if (storedPartitions != partitions) {
      throw changed(inputTopic, storedPartitions, partitions);
    }
    if (settings == null) {
      return;
    }
    if (storedSettings == null) {
      storedSettings = settings;
      settingsChanged = true;
    } else if (!StateSettings.compatible(storedSettings, settings)) {
      throw SettingsChangedException.between(storedSettings, settings);
    }
  }

  /** Merges one partition's partial of a (series, window) (a copy of {@code counts}). */
  public void partial(
      int partition, long windowStartMs, SeriesName series, WindowCounts counts, MergeOutput out) {
    counts.writeTo(writer.reset());
    partial(partition, windowStartMs, series, writer.toByteArray(), 0, out);
  }

  /**
   * Merges one partition's partial of a (series, window) whose counts are {@code record} from
   * {@code countsAt} to its end, in {@link WindowCounts#writeTo}'s form: kept as they are (the
   * array is not copied, nor changed) until the next commit adds them to the series' stored sum.
   */
  public void partial(
      int partition,
      long windowStartMs,
      SeriesName series,
      byte[] record,
      int countsAt,
      MergeOutput out) {
    checkPartition(partition);
    if (finalisedThrough != NONE && windowStartMs < finalisedThrough) {
      dropped++;
      progressChanged = true;
      out.droppedPartial(partition, series.series(), windowStartMs, dropped);
      return;
    }
    MergedWindow w = windows.computeIfAbsent(windowStartMs, MergedWindow::new);
    MergedSeries merged = w.series.computeIfAbsent(series.series(), k -> new MergedSeries(series));
    merged.partials.add(new Encoded(record, countsAt, record.length - countsAt));
    merged.changed = true;
  }

  /**
   * Keeps the worst producer pause and event-loop lag (µs, negative: none) of a window, applied to
   * each of its series at the end.
   */
  public void windowHealth(int partition, long windowStartMs, long pauseMaxUs, long lagMaxUs) {
    checkPartition(partition);
    if (finalisedThrough != NONE && windowStartMs < finalisedThrough) {
      return; // that window was emitted already
    }
    MergedWindow w = windows.computeIfAbsent(windowStartMs, MergedWindow::new);
    w.health.pause(pauseMaxUs);
    w.health.lag(lagMaxUs);
  }

  /**
   * Stage 1's output for {@code partition} fed straight to this merger, its summaries to {@code
   * out}: stage 1 and stage 2 in one process (offline stats, tests), where Kafka Streams would
   * carry the partials over a topic. Every call holds {@code lock} (several stage-1 threads, one
   * merger), or a monitor of its own when it is null.
   */
  public Stage1Output input(int partition, MergeOutput out, Object lock) {
    Object monitor = lock != null ? lock : new Object();
    return new Stage1Output() {
      @Override
      public void partial(long windowStartMs, SeriesName series, WindowCounts counts) {
        synchronized (monitor) {
          WindowMerger.this.partial(partition, windowStartMs, series, counts, out);
        }
      }

      @Override
      public void windowHealth(long windowStartMs, long pauseMaxUs, long lagMaxUs) {
        synchronized (monitor) {
          WindowMerger.this.windowHealth(partition, windowStartMs, pauseMaxUs, lagMaxUs);
        }
      }

      @Override
      public void closedThrough(long windowEndMs) {
        synchronized (monitor) {
          WindowMerger.this.closedThrough(partition, windowEndMs, out);
        }
      }
    };
  }

  /**
   * Notes that {@code partition} closed every window ending at or before {@code windowEndMs}, and
   * emits the windows all partitions have now closed.
   */
  public void closedThrough(int partition, long windowEndMs, MergeOutput out) {
    checkPartition(partition);
    if (markers[partition] != NONE && markers[partition] >= windowEndMs) {
      return;
    }
    markers[partition] = windowEndMs;
    markerChanged[partition] = true;
    long allThrough = Long.MAX_VALUE;
    for (long m : markers) {
      allThrough = Math.min(allThrough, m);
    }
    if (allThrough != NONE && allThrough > finalisedThrough) {
      finalise(allThrough, out);
      finalisedThrough = allThrough;
      progressChanged = true;
    }
    reportWaiting(out);
  }

  /** The end of the last finalised window, or {@link Long#MIN_VALUE} for none. */
  public long finalisedThroughMs() {
    return finalisedThrough;
  }

  /** The input partitions whose marker is behind the oldest window holding data. */
  public List<Integer> waitingFor() {
    return lagging(oldestPendingEndMs());
  }

  /** Windows holding partials not yet emitted. */
  public int openWindows() {
    return windows.size();
  }

  private void finalise(long throughMs, MergeOutput out) {
    Iterator<MergedWindow> done = windows.headMap(throughMs, false).values().iterator();
    while (done.hasNext()) {
      MergedWindow w = done.next();
      for (MergedSeries s : w.series.values()) {
        s.addUp(sum);
        stats.reset();
        sum.toStats(stats);
        w.health.addTo(stats);
        WindowSummary summary =
            stats.toSummary(
                s.name.series(),
                s.name.model(),
                s.name.labels(),
                w.startMs,
                w.startMs + windowMs,
                clientLagThresholdUs,
                slo);
        out.summary(summary, WindowSummaryCodec.encode(summary));
        if (s.persisted) {
          deletions.add(seriesKey(w.startMs, s.name.series()));
        }
      }
      if (w.health.persisted()) {
        deletions.add(healthKey(w.startMs));
      }
      done.remove();
    }
  }

  private void reportWaiting(MergeOutput out) {
    long oldest = oldestPendingEndMs();
    List<Integer> late = lagging(oldest);
    String now = oldest + " " + late;
    if (!now.equals(lastWaiting)) {
      lastWaiting = now;
      if (!late.isEmpty()) {
        out.waiting(oldest, late);
      }
    }
  }

  private List<Integer> lagging(long windowEndMs) {
    List<Integer> late = new ArrayList<>();
    if (windowEndMs != NONE) {
      for (int p = 0; p < partitions; p++) {
        if (markers[p] < windowEndMs) {
          late.add(p);
        }
      }
    }
    return late;
  }

  /** End of the oldest window holding a merged partial, or NONE. */
  private long oldestPendingEndMs() {
    for (MergedWindow w : windows.values()) {
      if (!w.series.isEmpty()) {
        return w.startMs + windowMs;
      }
    }
    return NONE;
  }

  private void checkPartition(int partition) {
    if (partition < 0 || partition >= partitions) {
      throw new PartitionsChangedException(
          "partitions changed: re-aggregate with a new --application-id (a record came from input"
              + " partition "
              + partition
              + " but this application id was started for "
              + partitions
              + " partitions)");
    }
  }

  private static PartitionsChangedException changed(String topic, int before, int now) {
    return new PartitionsChangedException(
        "partitions changed: re-aggregate with a new --application-id (topic "
            + topic
            + " had "
            + before
            + " partitions when this application id started, now "
            + now
            + ")");
  }

  // ---- the working set in the store ----

  /** Writes what changed since the last call (deleting what was emitted) to {@code store}. */
  public void writeChanges(ByteState store) {
    for (Bytes key : deletions) {
      store.delete(key);
    }
    deletions.clear();
    if (partitionsChanged) {
      store.put(PARTITIONS, writer.reset().writeVarLong(storedPartitions).toByteArray());
      partitionsChanged = false;
    }
    if (settingsChanged) {
      store.put(SETTINGS, writer.reset().writeString(storedSettings).toByteArray());
      settingsChanged = false;
    }
    for (int p = 0; p < partitions; p++) {
      if (markerChanged[p]) {
        store.put(markerKey(p), writer.reset().writeSigned(markers[p]).toByteArray());
        markerChanged[p] = false;
      }
    }
    if (progressChanged) {
      store.put(FINALISED_THROUGH, writer.reset().writeSigned(finalisedThrough).toByteArray());
      store.put(DROPPED, writer.reset().writeVarLong(dropped).toByteArray());
      progressChanged = false;
    }
    for (MergedWindow w : windows.values()) {
      byte[] health = w.health.changes(writer);
      if (health != null) {
        store.put(healthKey(w.startMs), health);
      }
      for (MergedSeries s : w.series.values()) {
        if (s.changed) {
          // one sum, the form stores always had: its size does not grow with the partitions, and
          // a partial that does not read fails this commit instead of entering the store
          s.addUp(sum);
          writer.reset();
          s.name.writeTo(writer);
          int countsAt = writer.size();
          sum.writeTo(writer);
          byte[] entry = writer.toByteArray();
          store.put(seriesKey(w.startMs, s.name.series()), entry);
          s.partials.clear(); // the entry holds them all now
          s.partials.add(new Encoded(entry, countsAt, entry.length - countsAt));
          s.changed = false;
          s.persisted = true;
        }
      }
    }
  }

  /** Rebuilds the working set from what {@link #writeChanges} wrote (replacing any). */
  public void load(ByteState store) {
    storedPartitions = -1;
    partitionsChanged = false;
    storedSettings = null;
    settingsChanged = false;
    Arrays.fill(markers, NONE);
    Arrays.fill(markerChanged, false);
    finalisedThrough = NONE;
    dropped = 0;
    progressChanged = false;
    windows.clear();
    deletions.clear();
    lastWaiting = "";
    List<long[]> outOfRange = new ArrayList<>();
    store.forEach(
        (key, value) -> {
          byte[] k = key.get();
          BinaryReader in = new BinaryReader(value);
          switch (k[0]) {
            case 'N' -> storedPartitions = in.readVarInt();
            case 's' -> storedSettings = in.readString();
            case 'f' -> finalisedThrough = in.readSigned();
            case 'd' -> dropped = in.readVarLong();
            case MARKER -> {
              int p = new BinaryReader(k, 1, 4).readFixedInt();
              long marker = in.readSigned();
              if (p < partitions) {
                markers[p] = marker;
              } else {
                outOfRange.add(new long[] {p, marker});
              }
            }
            case HEALTH -> {
              windows
                  .computeIfAbsent(new BinaryReader(k, 1, 8).readFixedLong(), MergedWindow::new)
                  .health
                  .restore(in);
            }
            case SERIES -> {
              MergedWindow w =
                  windows.computeIfAbsent(
                      new BinaryReader(k, 1, 8).readFixedLong(), MergedWindow::new);
              SeriesName name = SeriesName.readFrom(in);
              MergedSeries s = new MergedSeries(name);
              int countsAt = in.position();
              WindowCounts.readFrom(in); // that it reads
              s.partials.add(new Encoded(value, countsAt, in.position() - countsAt));
              s.changed = false;
              s.persisted = true;
              w.series.put(name.series(), s);
            }
            default ->
                throw new IllegalStateException(
                    "unknown entry in stage 2's store (tag " + (char) k[0] + ")");
          }
        });
    if (!outOfRange.isEmpty() && storedPartitions == partitions) {
      throw new IllegalStateException(
          "stage 2's store holds a marker of partition " + outOfRange.get(0)[0]);
    }
  }

  private static Bytes markerKey(int partition) {
    return Bytes.wrap(new BinaryWriter(5).writeByte(MARKER).writeFixedInt(partition).toByteArray());
  }

  private static Bytes healthKey(long windowStartMs) {
    return Bytes.wrap(
        new BinaryWriter(9).writeByte(HEALTH).writeFixedLong(windowStartMs).toByteArray());
  }

  private static Bytes seriesKey(long windowStartMs, String series) {
    byte[] name = series.getBytes(StandardCharsets.UTF_8);
    return Bytes.wrap(
        new BinaryWriter(9 + name.length)
            .writeByte(SERIES)
            .writeFixedLong(windowStartMs)
            .writeBytes(name)
            .toByteArray());
  }

  /** One window's merged series (in emission order) and producers' health. */
  private static final class MergedWindow {
    final long startMs;
    final Map<String, MergedSeries> series = new TreeMap<>(SERIES_ORDER);
    final WindowHealth health = new WindowHealth();

    MergedWindow(long startMs) {
      this.startMs = startMs;
    }
  }

  /**
   * One (window, series) merged so far: its partials as they came (one per input partition), or
   * since the last commit the sum written to the store, then those that came after it.
   */
  private static final class MergedSeries {
    final SeriesName name;
    final List<Encoded> partials = new ArrayList<>(2);
    boolean changed = true;
    boolean persisted;

    MergedSeries(SeriesName name) {
      this.name = name;
    }

    /** {@code sum}, cleared, then these partials added to it. */
    void addUp(WindowCounts sum) {
      sum.clear();
      for (Encoded partial : partials) {
        sum.addFrom(partial.reader());
      }
    }
  }

  /** A partial's counts in their binary form: {@code bytes[offset, offset + length)}. */
  private record Encoded(byte[] bytes, int offset, int length) {
    BinaryReader reader() {
      return new BinaryReader(bytes, offset, length);
    }
  }
}
