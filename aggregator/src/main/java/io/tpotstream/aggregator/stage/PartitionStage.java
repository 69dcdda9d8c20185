package io.tpotstream.aggregator.stage;

import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.common.Series;
import io.tpotstream.common.Windows;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.summary.WindowStats;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 1 for one input partition: per-request samples into partial windows, producer watermarks
 * into a close time, and, when the close time crosses window ends, the closed windows' partials
 * followed by a rising {@code closedThrough} marker. Holds no state of its own: everything lives in
 * the three {@link ByteState}s it is given (per-request state, partials, and the partition's
 * producers, progress and series names), so the aggregator and the offline {@code stats} command
 * run exactly this logic.
 */
public final class PartitionStage {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionStage.class);
  private static final byte PRODUCER = 'p';
  private static final byte SERIES = 's';
  private static final byte SERIES_ID = 'i';
  private static final byte COUNTER = 'n';
  private static final Bytes CLOSED_THROUGH = Bytes.wrap(new byte[] {'c'});

  private final StageSettings settings;
  private final long windowMs;
  private final long requestTimeoutMs;
  private final ByteState requests;
  private final WindowPartials partials;
  private final ByteState partition;

  /**
   * @param requests per-request state, keyed by request id
   * @param partials the open windows' counters
   * @param partition producers' watermarks, the last closed window end, counters and series names
   */
  public PartitionStage(
      StageSettings settings, ByteState requests, ByteState partials, ByteState partition) {
    this.settings = settings;
    this.windowMs = settings.windowMs();
    this.requestTimeoutMs = settings.requestTimeoutMs();
    this.requests = requests;
    this.partials = new WindowPartials(partials);
    this.partition = partition;
  }

  /** Applies one valid event (see {@link io.tpotstream.common.event.TokenEventCodec#decode}). */
  public void onEvent(TokenEvent event, Stage1Output out) {
    if (event.type() == EventType.HEARTBEAT) {
      onHeartbeat(event, out);
      return;
    }
    Assignment scope = new Assignment(closedThroughMs());
    Bytes key = Bytes.wrap(event.requestId().getBytes(StandardCharsets.UTF_8));
    byte[] stored = requests.get(key);
    RequestState state = stored == null ? null : RequestState.decode(stored);
    if (state != null && event.ts() >= state.lastTsMs() + requestTimeoutMs) {
      RequestSamples.abandon(state, requestTimeoutMs, scope);
      state = null;
    }
    int series = state != null ? state.series() : seriesOf(event);
    RequestState next = RequestSamples.apply(state, event, series, settings.slo().goodput(), scope);
    if (next != null) {
      requests.put(key, next.encode());
    } else if (stored != null) {
      requests.delete(key);
    }
  }

  /**
   * The end of the input (offline): as if every producer sent its final heartbeat at {@code
   * lastTsMs}, the highest {@code ts} read, so every window up to the one holding it closes.
   */
  public void endOfInput(long lastTsMs, Stage1Output out) {
    long through = Windows.startOf(lastTsMs, settings.windowSize()) + windowMs;
    long closed = closedThroughMs();
    if (closed == CloseTime.NONE || through > closed) {
      close(closed, through, out);
    }
  }

  /** The end of the last window closed on this partition, or {@link Long#MIN_VALUE} for none. */
  public long closedThroughMs() {
    byte[] value = partition.get(CLOSED_THROUGH);
    return value == null ? CloseTime.NONE : ByteBuffer.wrap(value).getLong();
  }

  /** Adds {@code count} to the partition's counter {@code name} and returns its new total. */
  public long addToCounter(String name, long count) {
    Bytes key = prefixed(COUNTER, name);
    byte[] old = partition.get(key);
    long total = (old == null ? 0 : ByteBuffer.wrap(old).getLong()) + count;
    partition.put(key, WindowPartials.longBytes(total));
    return total;
  }

  private void onHeartbeat(TokenEvent e, Stage1Output out) {
    long closed = closedThroughMs();
    if (e.clientPauseMaxUs() != null) {
      long windowStart = Windows.startOf(e.ts(), settings.windowSize());
      if (!isClosed(closed, windowStart)) {
        partials.clientPause(windowStart, e.clientPauseMaxUs());
      }
    }
    Bytes key = prefixed(PRODUCER, e.producerId());
    CloseTime.Mark old = decodeMark(partition.get(key));
    // A final heartbeat promises no more events at all, so its own ts is a watermark too.
    long watermark = e.finalHeartbeat() ? Math.max(e.watermark(), e.ts()) : e.watermark();
    CloseTime.Mark mark =
        old == null
            ? new CloseTime.Mark(watermark, e.finalHeartbeat())
            : new CloseTime.Mark(
                Math.max(old.watermarkMs(), watermark), old.isFinal() || e.finalHeartbeat());
    if (mark.equals(old)) {
      return;
    }
    partition.put(key, encodeMark(mark));
    long through =
        CloseTime.closedThroughMs(
            producers(), windowMs, settings.graceMs(), settings.producerTimeoutMs());
    if (through != CloseTime.NONE && (closed == CloseTime.NONE || through > closed)) {
      close(closed, through, out);
    }
  }

  private void close(long closed, long through, Stage1Output out) {
    expireRequests(new Assignment(closed), through);
    for (WindowPartials.ClosedWindow window :
        partials.drain(closed, through, id -> seriesName(id).series)) {
      if (window.pauseMaxUs >= 0) {
        out.clientPause(window.windowStartMs, window.pauseMaxUs);
      }
      long endMs = window.windowStartMs + windowMs;
      for (Map.Entry<String, WindowStats> s : window.series.entrySet()) {
        SeriesName name = seriesName(s.getKey());
        out.partial(
            s.getValue()
                .toSummary(
                    s.getKey(),
                    name.model,
                    name.labels,
                    window.windowStartMs,
                    endMs,
                    WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US,
                    settings.slo()));
      }
      if (window.clamped > 0) {
        LOG.warn(
            "{} latency values outside 0 µs to 1 h were clamped in the window starting {}",
            window.clamped,
            Windows.iso(window.windowStartMs));
      }
    }
    partition.put(CLOSED_THROUGH, WindowPartials.longBytes(through));
    out.closedThrough(through);
  }

  /** Requests silent until their expiry in a closing window are abandoned there. */
  private void expireRequests(Assignment scope, long throughMs) {
    List<Bytes> expired = new ArrayList<>();
    List<RequestState> states = new ArrayList<>();
    requests.forEach(
        (key, value) -> {
          long lastTsMs = ByteBuffer.wrap(value).getLong(1);
          if (lastTsMs + requestTimeoutMs < throughMs) {
            expired.add(key);
            states.add(RequestState.decode(value));
          }
        });
    for (int i = 0; i < expired.size(); i++) {
      RequestSamples.abandon(states.get(i), requestTimeoutMs, scope);
      requests.delete(expired.get(i));
    }
  }

  private List<CloseTime.Mark> producers() {
    List<CloseTime.Mark> marks = new ArrayList<>();
    partition.range(
        Bytes.wrap(new byte[] {PRODUCER}),
        Bytes.wrap(new byte[] {PRODUCER + 1}),
        (key, value) -> marks.add(decodeMark(value)));
    return marks;
  }

  /** The partition's small id of the event's series, assigned on first sight. */
  private int seriesOf(TokenEvent event) {
    SortedMap<String, String> labels = Series.select(event.labels(), settings.groupBy());
    String series = Series.name(event.model(), labels);
    Bytes key = prefixed(SERIES, series);
    byte[] known = partition.get(key);
    if (known != null) {
      return ByteBuffer.wrap(known).getInt();
    }
    int id = (int) addToCounter("seriesIds", 1);
    partition.put(key, ByteBuffer.allocate(4).putInt(id).array());
    partition.put(idKey(id), new SeriesName(series, event.model(), labels).encode());
    return id;
  }

  private SeriesName seriesName(int id) {
    return SeriesName.decode(partition.get(idKey(id)));
  }

  private SeriesName seriesName(String series) {
    byte[] id = partition.get(prefixed(SERIES, series));
    return seriesName(ByteBuffer.wrap(id).getInt());
  }

  private static Bytes idKey(int id) {
    return Bytes.wrap(ByteBuffer.allocate(5).put(SERIES_ID).putInt(id).array());
  }

  private boolean isClosed(long closed, long windowStartMs) {
    return closed != CloseTime.NONE && windowStartMs + windowMs <= closed;
  }

  private static Bytes prefixed(byte prefix, String name) {
    byte[] text = name.getBytes(StandardCharsets.UTF_8);
    byte[] key = new byte[text.length + 1];
    key[0] = prefix;
    System.arraycopy(text, 0, key, 1, text.length);
    return Bytes.wrap(key);
  }

  private static byte[] encodeMark(CloseTime.Mark mark) {
    return ByteBuffer.allocate(9)
        .putLong(mark.watermarkMs())
        .put((byte) (mark.isFinal() ? 1 : 0))
        .array();
  }

  private static CloseTime.Mark decodeMark(byte[] value) {
    if (value == null) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    return new CloseTime.Mark(b.getLong(), b.get() == 1);
  }

  /**
   * Window assignment for one event: a sample whose window already closed on this partition is
   * dropped and counted as late in the oldest open window of its series.
   */
  private final class Assignment implements Samples {
    private final long closed;

    Assignment(long closed) {
      this.closed = closed;
    }

    @Override
    public void latency(Metric metric, int series, long tsMs, long micros, long count) {
      long start = Windows.startOf(tsMs, settings.windowSize());
      if (isClosed(closed, start)) {
        partials.count(closed, series, Counter.LATE_SAMPLES, count);
      } else {
        partials.latency(start, series, metric, micros, count);
      }
    }

    @Override
    public void count(Counter counter, int series, long tsMs, long count) {
      long start = Windows.startOf(tsMs, settings.windowSize());
      if (!isClosed(closed, start)) {
        partials.count(start, series, counter, count);
      } else if (counter != Counter.FIRST_CHUNK_TOKENS) {
        partials.count(closed, series, Counter.LATE_SAMPLES, count);
      }
    }

    @Override
    public void failed(int series, long tsMs, String errorClass) {
      long start = Windows.startOf(tsMs, settings.windowSize());
      if (isClosed(closed, start)) {
        partials.count(closed, series, Counter.LATE_SAMPLES, 1);
      } else {
        partials.failed(start, series, errorClass, 1);
      }
    }
  }

  /** A series' name, model and grouped labels, as summaries carry them. */
  private record SeriesName(String series, String model, SortedMap<String, String> labels) {
    byte[] encode() {
      List<byte[]> parts = new ArrayList<>();
      parts.add(series.getBytes(StandardCharsets.UTF_8));
      parts.add(model.getBytes(StandardCharsets.UTF_8));
      labels.forEach(
          (k, v) -> {
            parts.add(k.getBytes(StandardCharsets.UTF_8));
            parts.add(v.getBytes(StandardCharsets.UTF_8));
          });
      int size = 0;
      for (byte[] p : parts) {
        size += 4 + p.length;
      }
      ByteBuffer b = ByteBuffer.allocate(size);
      parts.forEach(p -> b.putInt(p.length).put(p));
      return b.array();
    }

    static SeriesName decode(byte[] value) {
      ByteBuffer b = ByteBuffer.wrap(value);
      String series = next(b);
      String model = next(b);
      SortedMap<String, String> labels = new TreeMap<>();
      while (b.hasRemaining()) {
        labels.put(next(b), next(b));
      }
      return new SeriesName(series, model, labels);
    }

    private static String next(ByteBuffer b) {
      byte[] text = new byte[b.getInt()];
      b.get(text);
      return new String(text, StandardCharsets.UTF_8);
    }
  }
}
