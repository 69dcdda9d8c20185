package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.common.Series;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.event.DecodedEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.IntConsumer;

/**
 * A partition's small ids of its series names (what the open windows and requests hold), with the
 * clock at each series' last request, so that a series gone for longer than the producer timeout
 * frees its id; an id freed is given again.
 */
final class SeriesIds {
  private final List<SeriesName> names = new ArrayList<>(); // by id; null: a free id
  private final List<Long> usedMs = new ArrayList<>(); // by id: the clock at its last request
  private final Map<String, Integer> ids = new HashMap<>();
  private final List<Integer> unsaved = new ArrayList<>();
  private final boolean keepsChanges;

  /**
   * Series ids by the bytes of the model and labels as records wrote them: a request's start then
   * reads no strings and builds no name when its series is known. Cleared whenever an id is freed.
   */
  private final Map<SeriesBytes, Integer> byBytes = new HashMap<>();

  private final SeriesBytes probe = new SeriesBytes(null);
  private static final int MAX_BYTES_KEYS = 4096;

  /**
   * The most series a partition keeps at once (in use or used within the producer timeout): what
   * passes it is counted under {@link #OVERFLOW}, so that no writer can grow the working set, the
   * partials or the summaries of a window without bound.
   */
  static final int MAX_SERIES = 1_000;

  /** The series (and model) of the requests past {@link #MAX_SERIES}. */
  static final String OVERFLOW = "(other series)";

  SeriesIds(boolean keepsChanges) {
    this.keepsChanges = keepsChanges;
  }

  /**
   * The id of the event's series (its model and the labels {@code groupBy} keeps), assigned on
   * first sight.
   */
  int of(DecodedEvent event, List<String> groupBy, long clockMs) {
    if (!event.hasSeriesBytes()) {
      return byName(event, groupBy, clockMs);
    }
    Integer known = byBytes.get(probe.aim(event));
    if (known != null) {
      return known;
    }
    int id = byName(event, groupBy, clockMs);
    if (byBytes.size() >= MAX_BYTES_KEYS) {
      byBytes.clear(); // labels that vary and are not grouped by: bounded, whatever writers send
    }
    byBytes.put(new SeriesBytes(event.seriesBytes()), id);
    return id;
  }

  private int byName(DecodedEvent event, List<String> groupBy, long clockMs) {
    SortedMap<String, String> labels = Series.select(event.labels(), groupBy);
    String series = Series.name(event.model(), labels);
    Integer known = ids.get(series);
    if (known != null) {
      return known;
    }
    String model = event.model();
    if (ids.size() >= MAX_SERIES) {
      // thousands of distinct models or grouped labels (a buggy or hostile writer): what passes
      // the cap is summarised as one series, so every request is still counted somewhere
      series = OVERFLOW;
      model = OVERFLOW;
      labels = new java.util.TreeMap<>();
      known = ids.get(series);
      if (known != null) {
        return known;
      }
    }
    int id = names.indexOf(null);
    SeriesName name = new SeriesName(series, model, labels);
    if (id < 0) {
      id = names.size();
      names.add(name);
      usedMs.add(clockMs);
    } else {
      names.set(id, name);
      usedMs.set(id, clockMs);
    }
    ids.put(series, id);
    if (keepsChanges) {
      unsaved.add(id);
    }
    return id;
  }

  /** A request of series {@code id} started at {@code clockMs}. */
  void used(int id, long clockMs) {
    usedMs.set(id, clockMs);
  }

  SeriesName name(int id) {
    return names.get(id);
  }

  /** Ids given so far (some may be free). */
  int size() {
    return names.size();
  }

  /** Names kept. */
  int kept() {
    return ids.size();
  }

  /**
   * Frees the ids not {@code used} whose series started no request within {@code timeoutMs} of
   * {@code clockMs}; {@code freed} gets each.
   */
  void prune(boolean[] used, long clockMs, long timeoutMs, IntConsumer freed) {
    for (int id = 0; id < used.length; id++) {
      SeriesName name = names.get(id);
      if (name != null && !used[id] && clockMs - usedMs.get(id) > timeoutMs) {
        names.set(id, null);
        ids.remove(name.series());
        byBytes.clear();
        unsaved.remove(Integer.valueOf(id));
        freed.accept(id);
      }
    }
  }

  /** Writes the names given since the last call. */
  void writeChanges(ByteState store, BinaryWriter writer) {
    for (int id : unsaved) {
      writer.reset();
      names.get(id).writeTo(writer);
      store.put(StageKeys.seriesKey(id), writer.toByteArray());
    }
    unsaved.clear();
  }

  /** Replaces every id by {@code loaded} (id → name), each last used at {@code clockMs}. */
  void load(Map<Integer, SeriesName> loaded, long clockMs) {
    clear();
    for (Map.Entry<Integer, SeriesName> n : loaded.entrySet()) {
      while (names.size() < n.getKey()) {
        names.add(null); // an id freed by pruning
        usedMs.add(CloseTime.NONE);
      }
      names.add(n.getValue());
      usedMs.add(clockMs);
      ids.put(n.getValue().series(), n.getKey());
    }
  }

  void clear() {
    byBytes.clear();
    names.clear();
    usedMs.clear();
    ids.clear();
    unsaved.clear();
  }

  /**
   * A key of {@link #byBytes}: its bytes, or for the one probe, the event it is aimed at (compared
   * in place, nothing copied).
   */
  private static final class SeriesBytes {
    private final byte[] bytes;
    private DecodedEvent event;
    private int hash;

    SeriesBytes(byte[] bytes) {
      this.bytes = bytes;
      this.hash = bytes == null ? 0 : Arrays.hashCode(bytes);
    }

    SeriesBytes aim(DecodedEvent event) {
      this.event = event;
      this.hash = event.seriesBytesHash();
      return this;
    }

    @Override
    public boolean equals(Object o) {
      if (!(o instanceof SeriesBytes other) || hash != other.hash) {
        return false;
      }
      if (event != null) {
        return event.seriesBytesEqual(other.bytes);
      }
      return other.event != null
          ? other.event.seriesBytesEqual(bytes)
          : Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
