package io.tpotstream.aggregator.merge;

import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;

/**
 * Stage 2: merges the partitions' partial summaries per (series, window) and finalises a window
 * once the {@code closedThrough} markers of all N input partitions reach its end, emitting its
 * summaries in sorted series order. N is kept in the state: a different N stops the merge. Holds no
 * state of its own: the merged partials and the progress live in the {@link ByteState}s it is
 * given.
 */
public final class WindowMerger {
  private static final byte PAUSE_TAG = 0;
  private static final byte SUMMARY_TAG = 1;
  private static final Bytes PARTITIONS = Bytes.wrap(new byte[] {'N'});
  private static final Bytes FINALISED_THROUGH = Bytes.wrap(new byte[] {'f'});
  private static final Bytes DROPPED = Bytes.wrap(new byte[] {'d'});
  private static final Bytes WAITING = Bytes.wrap(new byte[] {'w'});
  private static final long NONE = Long.MIN_VALUE;

  private final int partitions;
  private final ByteState merged;
  private final ByteState progress;
  private final SloSpec slo;

  /**
   * @param partitions N, the input topic's partition count
   * @param merged merged partials per (window, series) and per-window producer pauses
   * @param progress N, each partition's marker, the finalised window end and counters
   */
  public WindowMerger(int partitions, ByteState merged, ByteState progress) {
    this(partitions, merged, progress, SloSpec.NONE);
  }

  /** As above, with {@code slo} evaluated on every window it finalises. */
  public WindowMerger(int partitions, ByteState merged, ByteState progress, SloSpec slo) {
    this.slo = slo;
    if (partitions < 1) {
      throw new IllegalArgumentException("the input topic must have at least one partition");
    }
    this.partitions = partitions;
    this.merged = merged;
    this.progress = progress;
  }

  /**
   * Records N on first use and checks it afterwards.
   *
   * @throws PartitionsChangedException when the state was built for another partition count
   */
  public void open(String inputTopic) {
    byte[] stored = progress.get(PARTITIONS);
    if (stored == null) {
      progress.put(PARTITIONS, ByteBuffer.allocate(4).putInt(partitions).array());
      return;
    }
    int before = ByteBuffer.wrap(stored).getInt();
    if (before != partitions) {
      throw changed(inputTopic, before, partitions);
    }
  }

  /** Merges one partition's partial summary of a (series, window). */
  public void partial(int partition, WindowSummary partial, MergeOutput out) {
    checkPartition(partition);
    if (partial.windowEndMs() <= finalisedThroughMs()) {
      long total = addDropped();
      out.droppedPartial(partition, partial.series(), partial.windowStartMs(), total);
      return;
    }
    Bytes key = summaryKey(partial.windowStartMs(), partial.series());
    byte[] before = merged.get(key);
    if (before == null) {
      merged.put(key, WindowSummaryCodec.encode(partial));
      return;
    }
    WindowSummary sum = WindowSummaryCodec.decode(before);
    WindowStats stats = WindowStats.fromSummary(sum).add(WindowStats.fromSummary(partial));
    merged.put(key, WindowSummaryCodec.encode(toSummary(stats, sum)));
  }

  /** Keeps the worst producer pause (µs) of a window, applied to each of its series at the end. */
  public void clientPause(int partition, long windowStartMs, long pauseMaxUs) {
    checkPartition(partition);
    long finalised = finalisedThroughMs();
    if (finalised != NONE && windowStartMs < finalised) {
      return; // that window was emitted already
    }
    Bytes key = Bytes.wrap(ByteBuffer.allocate(9).putLong(windowStartMs).put(PAUSE_TAG).array());
    byte[] before = merged.get(key);
    if (before == null || ByteBuffer.wrap(before).getLong() < pauseMaxUs) {
      merged.put(key, longBytes(pauseMaxUs));
    }
  }

  /**
   * Notes that {@code partition} closed every window ending at or before {@code windowEndMs}, and
   * emits the windows all partitions have now closed.
   */
  public void closedThrough(int partition, long windowEndMs, MergeOutput out) {
    checkPartition(partition);
    Bytes key = markerKey(partition);
    byte[] before = progress.get(key);
    if (before != null && ByteBuffer.wrap(before).getLong() >= windowEndMs) {
      return;
    }
    progress.put(key, longBytes(windowEndMs));
    long[] markers = markers();
    long allThrough = Arrays.stream(markers).min().orElse(NONE);
    long finalised = finalisedThroughMs();
    if (allThrough != NONE && allThrough > finalised) {
      finalise(allThrough, out);
      progress.put(FINALISED_THROUGH, longBytes(allThrough));
    }
    reportWaiting(markers, out);
  }

  /** The end of the last finalised window, or {@link Long#MIN_VALUE} for none. */
  public long finalisedThroughMs() {
    byte[] value = progress.get(FINALISED_THROUGH);
    return value == null ? NONE : ByteBuffer.wrap(value).getLong();
  }

  /** The input partitions whose marker is behind the oldest window holding data. */
  public List<Integer> waitingFor() {
    return lagging(markers(), oldestPendingEndMs());
  }

  private void finalise(long throughMs, MergeOutput out) {
    List<Bytes> keys = new ArrayList<>();
    List<byte[]> values = new ArrayList<>();
    long finalised = finalisedThroughMs();
    merged.range(
        finalised == NONE ? Bytes.wrap(new byte[0]) : Bytes.wrap(longBytes(finalised)),
        Bytes.wrap(longBytes(throughMs)),
        (key, value) -> {
          keys.add(key);
          values.add(value);
        });
    long pauseWindow = NONE;
    long pauseMaxUs = -1;
    for (int i = 0; i < keys.size(); i++) {
      ByteBuffer key = ByteBuffer.wrap(keys.get(i).get());
      long windowStartMs = key.getLong();
      if (key.get() == PAUSE_TAG) {
        pauseWindow = windowStartMs;
        pauseMaxUs = ByteBuffer.wrap(values.get(i)).getLong();
        continue;
      }
      WindowSummary sum = WindowSummaryCodec.decode(values.get(i));
      WindowStats stats = WindowStats.fromSummary(sum);
      if (pauseWindow == windowStartMs) {
        stats.clientPause(pauseMaxUs);
      }
      WindowSummary summary = toSummary(stats, sum);
      out.summary(summary, WindowSummaryCodec.encode(summary));
    }
    keys.forEach(merged::delete);
  }

  private void reportWaiting(long[] markers, MergeOutput out) {
    long oldest = oldestPendingEndMs();
    List<Integer> late = lagging(markers, oldest);
    ByteBuffer said = ByteBuffer.allocate(8 + 4 * late.size()).putLong(oldest);
    late.forEach(said::putInt);
    byte[] now = said.array();
    if (!Arrays.equals(now, progress.get(WAITING))) {
      progress.put(WAITING, now);
      if (!late.isEmpty()) {
        out.waiting(oldest, late);
      }
    }
  }

  private List<Integer> lagging(long[] markers, long windowEndMs) {
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

  /** End of the oldest window holding a merged summary, or NONE. */
  private long oldestPendingEndMs() {
    long[] oldest = {NONE};
    merged.forEach(
        (key, value) -> {
          if (oldest[0] == NONE && key.get()[8] == SUMMARY_TAG) {
            oldest[0] = WindowSummaryCodec.decode(value).windowEndMs();
          }
        });
    return oldest[0];
  }

  private long[] markers() {
    long[] markers = new long[partitions];
    for (int p = 0; p < partitions; p++) {
      byte[] value = progress.get(markerKey(p));
      markers[p] = value == null ? NONE : ByteBuffer.wrap(value).getLong();
    }
    return markers;
  }

  private long addDropped() {
    byte[] before = progress.get(DROPPED);
    long total = (before == null ? 0 : ByteBuffer.wrap(before).getLong()) + 1;
    progress.put(DROPPED, longBytes(total));
    return total;
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

  private WindowSummary toSummary(WindowStats stats, WindowSummary like) {
    return stats.toSummary(
        like.series(),
        like.model(),
        like.labels(),
        like.windowStartMs(),
        like.windowEndMs(),
        WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US,
        slo);
  }

  private static Bytes summaryKey(long windowStartMs, String series) {
    byte[] name = series.getBytes(StandardCharsets.UTF_8);
    return Bytes.wrap(
        ByteBuffer.allocate(9 + name.length)
            .putLong(windowStartMs)
            .put(SUMMARY_TAG)
            .put(name)
            .array());
  }

  private static Bytes markerKey(int partition) {
    return Bytes.wrap(ByteBuffer.allocate(5).put((byte) 'm').putInt(partition).array());
  }

  private static byte[] longBytes(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }
}
