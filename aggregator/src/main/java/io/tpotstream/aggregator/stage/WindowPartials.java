package io.tpotstream.aggregator.stage;

import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowStats;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.IntFunction;
import org.HdrHistogram.Histogram;
import org.apache.kafka.common.utils.Bytes;

/**
 * A partition's open windows, kept as cheap counters: key (window, series id, histogram, bucket) →
 * count, (window, series id, counter) → count, (window, series id, error class) → count and
 * (window) → the producers' worst pause. Keys are short (a series is a small id of the partition)
 * so that the stores compare them quickly. A sample costs one small read and write, never a
 * histogram serialisation; the histograms are built when the window closes. Buckets are
 * HdrHistogram's, so the rebuilt histogram equals one that recorded every sample.
 */
final class WindowPartials {
  private static final Histogram SHAPE = new LatencyHistogram().toHdr();
  private static final int LATENCY_TAG = 0;
  private static final int COUNTER_TAG = 16;
  private static final int ERROR_TAG = 32;
  private static final int PAUSE_TAG = 48;
  private static final int NO_SERIES = -1;

  private final ByteState state;

  WindowPartials(ByteState state) {
    this.state = state;
  }

  /**
   * Adds {@code count} samples of {@code micros}; a value outside 0 µs to 1 h is clamped to the
   * range and counted in {@link Counter#CLAMPED}.
   */
  void latency(long windowStartMs, int series, Metric metric, long micros, long count) {
    long value = micros;
    if (micros < 0 || micros > LatencyHistogram.HIGHEST_MICROS) {
      value = micros < 0 ? 0 : LatencyHistogram.HIGHEST_MICROS;
      count(windowStartMs, series, Counter.CLAMPED, count);
    }
    long bucket = SHAPE.lowestEquivalentValue(value);
    byte[] key = key(windowStartMs, series, LATENCY_TAG + metric.ordinal(), 8);
    ByteBuffer.wrap(key).putLong(key.length - 8, bucket);
    add(Bytes.wrap(key), count);
  }

  void count(long windowStartMs, int series, Counter counter, long count) {
    add(Bytes.wrap(key(windowStartMs, series, COUNTER_TAG + counter.ordinal(), 0)), count);
  }

  void failed(long windowStartMs, int series, String errorClass, long count) {
    byte[] name = errorClass.getBytes(StandardCharsets.UTF_8);
    byte[] key = key(windowStartMs, series, ERROR_TAG, name.length);
    System.arraycopy(name, 0, key, key.length - name.length, name.length);
    add(Bytes.wrap(key), count);
  }

  /** Keeps the largest producer pause (µs) reported in the window. */
  void clientPause(long windowStartMs, long micros) {
    Bytes key = Bytes.wrap(key(windowStartMs, NO_SERIES, PAUSE_TAG, 0));
    byte[] old = state.get(key);
    if (old == null || ByteBuffer.wrap(old).getLong() < micros) {
      state.put(key, longBytes(micros));
    }
  }

  /**
   * Removes and returns every window starting at or after {@code fromMs} and before {@code endMs},
   * oldest first (nothing is kept below the last closed window end, so that is where to start);
   * {@code seriesNames} turns a series id back into its name.
   */
  List<ClosedWindow> drain(long fromMs, long endMs, IntFunction<String> seriesNames) {
    TreeMap<Long, ClosedWindow> windows = new TreeMap<>();
    List<Bytes> keys = new ArrayList<>();
    state.range(
        fromMs == Long.MIN_VALUE ? Bytes.wrap(new byte[0]) : Bytes.wrap(longBytes(fromMs)),
        Bytes.wrap(longBytes(endMs)),
        (key, value) -> {
          keys.add(key);
          ByteBuffer k = ByteBuffer.wrap(key.get());
          long windowStartMs = k.getLong();
          int seriesId = k.getInt();
          int tag = k.get();
          long count = ByteBuffer.wrap(value).getLong();
          ClosedWindow window =
              windows.computeIfAbsent(windowStartMs, w -> new ClosedWindow(w, new TreeMap<>()));
          if (tag == PAUSE_TAG) {
            window.pauseMaxUs = count;
            return;
          }
          WindowStats stats =
              window.series.computeIfAbsent(seriesNames.apply(seriesId), s -> new WindowStats());
          if (tag < COUNTER_TAG) {
            Metric.ofCode(tag - LATENCY_TAG).of(stats).recordMicros(k.getLong(), count);
          } else if (tag < ERROR_TAG) {
            Counter counter = Counter.ofCode(tag - COUNTER_TAG);
            counter.addTo(stats, count);
            if (counter == Counter.CLAMPED) {
              window.clamped += count;
            }
          } else {
            int at = k.position();
            stats.failed(
                new String(key.get(), at, key.get().length - at, StandardCharsets.UTF_8), count);
          }
        });
    keys.forEach(state::delete);
    for (ClosedWindow window : windows.values()) {
      window.series.values().forEach(stats -> stats.outputTokens(stats.tpot.count()));
    }
    return new ArrayList<>(windows.values());
  }

  private void add(Bytes key, long count) {
    byte[] old = state.get(key);
    long total = old == null ? count : ByteBuffer.wrap(old).getLong() + count;
    state.put(key, longBytes(total));
  }

  /** [window start 8][series id 4][tag 1][payload]. */
  private static byte[] key(long windowStartMs, int series, int tag, int payloadBytes) {
    byte[] key = new byte[8 + 4 + 1 + payloadBytes];
    ByteBuffer.wrap(key).putLong(windowStartMs).putInt(series).put((byte) tag);
    return key;
  }

  static byte[] longBytes(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }

  /** One closed window of this partition: its series' stats, sorted, and its worst pause. */
  static final class ClosedWindow {
    final long windowStartMs;
    final SortedMap<String, WindowStats> series;
    long pauseMaxUs = -1;
    long clamped;

    ClosedWindow(long windowStartMs, SortedMap<String, WindowStats> series) {
      this.windowStartMs = windowStartMs;
      this.series = series;
    }
  }
}
