package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;

/**
 * The working set of one partition's {@link PartitionStage}, in memory: open requests, the open
 * windows' counts, producers, series ids, counters and the partition's progress, with what changed
 * since it was last written; {@link #writeChanges} writes that to a {@link ByteState} and {@link
 * #load} rebuilds it from one ({@link StageKeys} names the entries).
 */
final class WorkingSet {
  private static final long NONE = CloseTime.NONE;

  /** A producer's promise on this partition; {@code changed} since the last write. */
  record Producer(CloseTime.Mark mark, boolean changed) {}

  final Map<RequestKey, OpenRequest> requests = new HashMap<>();
  final List<OpenRequest> changedRequests = new ArrayList<>();
  final TreeMap<Long, OpenWindow> windows = new TreeMap<>();
  OpenWindow lastWindow;
  final Map<String, Producer> producers = new HashMap<>();
  final SeriesIds series;
  final Map<String, long[]> counters = new TreeMap<>();
  final List<String> changedCounters = new ArrayList<>();
  long closedThrough = NONE;
  boolean closedThroughChanged;
  long clockMs = NONE;
  boolean clockChanged;
  final List<Bytes> deletions = new ArrayList<>();
  private final BinaryWriter writer = new BinaryWriter(256);

  WorkingSet(boolean keepsChanges) {
    series = new SeriesIds(keepsChanges);
  }

  /**
   * Each series' counts from its last closed window, cleared, for its next one (see {@link
   * WindowCounts#clear}); by series id.
   */
  private WindowCounts[] spares = new WindowCounts[0];

  /** The counts {@code series} starts a window with: its spare ones, or new. */
  WindowCounts takeSpare(int series) {
    WindowCounts spare = series < spares.length ? spares[series] : null;
    if (spare == null) {
      return new WindowCounts();
    }
    spares[series] = null;
    return spare;
  }

  /** Keeps {@code counts} of a closed window (emitted) for the next window of {@code series}. */
  void spare(int series, WindowCounts counts) {
    if (series >= spares.length) {
      spares = Arrays.copyOf(spares, Math.max(series + 1, 2 * spares.length));
    }
    counts.clear();
    spares[series] = counts;
  }

  /** Forgets the spare counts of a series whose id was freed. */
  void dropSpare(int series) {
    if (series < spares.length) {
      spares[series] = null;
    }
  }

  /** The open window starting at {@code startMs}, made when missing. */
  OpenWindow window(long startMs) {
    OpenWindow w = lastWindow;
    if (w == null || w.startMs != startMs) {
      w = windows.get(startMs);
      if (w == null) {
        w = new OpenWindow(startMs);
        windows.put(startMs, w);
      }
      lastWindow = w;
    }
    return w;
  }

  /** Writes what changed since the last call (deleting what ended) to {@code store}. */
  void writeChanges(ByteState store) {
    for (Bytes key : deletions) {
      store.delete(key);
    }
    deletions.clear();
    for (OpenRequest r : changedRequests) {
      if (r.removed) {
        if (r.persisted) {
          store.delete(StageKeys.prefixed(StageKeys.REQUEST, r.key.bytes()));
          r.persisted = false;
        }
      } else {
        writer.reset();
        r.writeTo(writer);
        store.put(StageKeys.prefixed(StageKeys.REQUEST, r.key.bytes()), writer.toByteArray());
        r.persisted = true;
      }
      r.dirty = false;
    }
    changedRequests.clear();
    for (OpenWindow w : windows.values()) {
      byte[] health = w.health.changes(writer);
      if (health != null) {
        store.put(StageKeys.healthKey(w.startMs), health);
      }
      for (int id = 0; id < w.slots.length; id++) {
        OpenWindow.Slot slot = w.slots[id];
        if (slot != null && slot.changed) {
          writer.reset();
          slot.counts.writeTo(writer);
          store.put(StageKeys.countsKey(w.startMs, id), writer.toByteArray());
          slot.changed = false;
          slot.persisted = true;
        }
      }
    }
    for (Map.Entry<String, Producer> p : producers.entrySet()) {
      if (p.getValue().changed) {
        writer.reset().writeSigned(p.getValue().mark.watermarkMs());
        writer.writeByte(p.getValue().mark.isFinal() ? 1 : 0);
        writer.writeSigned(p.getValue().mark.lastSeenMs());
        store.put(StageKeys.prefixed(StageKeys.PRODUCER, p.getKey()), writer.toByteArray());
        p.setValue(new Producer(p.getValue().mark, false));
      }
    }
    series.writeChanges(store, writer);
    for (String name : changedCounters) {
      writer.reset().writeSigned(counters.get(name)[0]);
      store.put(StageKeys.prefixed(StageKeys.COUNTER, name), writer.toByteArray());
    }
    changedCounters.clear();
    if (closedThroughChanged) {
      store.put(StageKeys.CLOSED_THROUGH, writer.reset().writeSigned(closedThrough).toByteArray());
      closedThroughChanged = false;
    }
    if (clockChanged) {
      store.put(StageKeys.CLOCK, writer.reset().writeSigned(clockMs).toByteArray());
      clockChanged = false;
    }
  }

  /** Rebuilds the working set from what {@link #writeChanges} wrote (replacing any). */
  void load(ByteState store) {
    requests.clear();
    changedRequests.clear();
    windows.clear();
    lastWindow = null;
    spares = new WindowCounts[0];
    producers.clear();
    series.clear();
    counters.clear();
    changedCounters.clear();
    deletions.clear();
    closedThrough = NONE;
    closedThroughChanged = false;
    clockMs = NONE;
    clockChanged = false;
    Map<Integer, SeriesName> names = new TreeMap<>();
    store.forEach(
        (key, value) -> {
          byte[] k = key.get();
          BinaryReader in = new BinaryReader(value);
          switch (k[0]) {
            case StageKeys.REQUEST -> {
              RequestKey id = new RequestKey(Arrays.copyOfRange(k, 1, k.length));
              requests.put(id, OpenRequest.readFrom(id, in));
            }
            case StageKeys.COUNTS -> {
              BinaryReader at = new BinaryReader(k, 1, k.length - 1);
              long start = at.readFixedLong();
              OpenWindow.Slot slot = window(start).slot(at.readFixedInt(), id -> null);
              slot.counts = WindowCounts.readFrom(in);
              slot.persisted = true;
            }
            case StageKeys.HEALTH -> {
              window(new BinaryReader(k, 1, 8).readFixedLong()).health.restore(in);
            }
            case StageKeys.PRODUCER -> {
              long watermark = in.readSigned();
              boolean isFinal = in.readByte() == 1;
              long lastSeen = in.hasRemaining() ? in.readSigned() : NONE; // NONE: seen at load
              producers.put(
                  new String(k, 1, k.length - 1, StandardCharsets.UTF_8),
                  new Producer(new CloseTime.Mark(watermark, isFinal, lastSeen), false));
            }
            case StageKeys.SERIES ->
                names.put(new BinaryReader(k, 1, 4).readFixedInt(), SeriesName.readFrom(in));
            case StageKeys.COUNTER ->
                counters.put(
                    new String(k, 1, k.length - 1, StandardCharsets.UTF_8),
                    new long[] {in.readSigned()});
            case 'C' -> closedThrough = in.readSigned();
            case 'K' -> clockMs = in.readSigned();
            case 's' -> {} // SETTINGS, the aggregator's
            default ->
                throw new IllegalStateException(
                    "unknown entry in stage 1's store (tag " + (char) k[0] + ")");
          }
        });
    if (clockMs == NONE) { // a store written before the clock was kept
      clockMs = closedThrough;
    }
    series.load(names, clockMs);
    for (Map.Entry<String, Producer> p : producers.entrySet()) {
      if (p.getValue().mark.lastSeenMs() == NONE) {
        CloseTime.Mark m = p.getValue().mark;
        p.setValue(new Producer(new CloseTime.Mark(m.watermarkMs(), m.isFinal(), clockMs), true));
      }
    }
    for (OpenWindow w : windows.values()) {
      for (OpenWindow.Slot slot : w.slots) {
        if (slot != null) {
          slot.changed = false;
        }
      }
    }
    lastWindow = null;
  }
}
