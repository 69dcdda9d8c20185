package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.SeriesName;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.aggregator.state.WindowHealth;
import io.tpotstream.common.Durations;
import io.tpotstream.common.Series;
import io.tpotstream.common.Windows;
import io.tpotstream.common.binary.BinaryReader;
import io.tpotstream.common.binary.BinaryWriter;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.slo.GoodputLimits;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
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
 * followed by a rising {@code closedThrough} marker.
 *
 * <p>Time is the partition's clock: the highest broker timestamp read (never past this machine's
 * clock), moved on by the wall clock while no record arrives ({@link #tick}). A producer holds
 * windows open until it is final or silent past the producer timeout by that clock; with none
 * holding, a window closes once the clock passes its end. Producers and series gone for longer than
 * the timeout are pruned, so the working set stays bounded however many come and go.
 *
 * <p>Its working set lives in memory (open requests, the open windows' counts, producers, series
 * names, the partition's progress): one hash lookup and a few additions per event. {@link
 * #writeChanges} writes what changed since its last call to a {@link ByteState} (the aggregator
 * calls it inside every commit, so the store and its changelog always match the offsets committed)
 * and {@link #load} rebuilds the working set from that state after a restart or a task migration.
 * The offline {@code stats} command runs exactly this logic without a store.
 */
public final class PartitionStage {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionStage.class);
  private static final long NONE = CloseTime.NONE;

  // store keys: [tag][...]
  private static final byte REQUEST = 'r';
  private static final byte COUNTS = 'w';
  private static final byte HEALTH = 'h';
  private static final byte PRODUCER = 'p';
  private static final byte SERIES = 'n';
  private static final byte COUNTER = 'c';
  private static final Bytes CLOSED_THROUGH = Bytes.wrap(new byte[] {'C'});
  private static final Bytes CLOCK = Bytes.wrap(new byte[] {'K'});

  /** Where the aggregator keeps the settings the state was built with (this class ignores it). */
  public static final Bytes SETTINGS = Bytes.wrap(new byte[] {'s'});

  /**
   * How long a partition must have read nothing before the wall clock moves its clock on: a live
   * producer sends a heartbeat to every partition every second, and a backlog read at speed is
   * never this quiet.
   */
  static final long IDLE_MS = 2_000;

  private final boolean keepsChanges;
  private final boolean closeOnFinal;
  private final StageSettings settings;
  private final GoodputLimits goodput;
  private final long windowMs;
  private final long requestTimeoutMs;
  private final Assignment samples = new Assignment();

  private final Map<RequestKey, OpenRequest> requests = new HashMap<>();
  private final RequestKey probe = RequestKey.probe();
  private final List<OpenRequest> changedRequests = new ArrayList<>();
  private final TreeMap<Long, OpenWindow> windows = new TreeMap<>();
  private OpenWindow lastWindow;
  private final Map<String, Producer> producers = new HashMap<>();
  private final List<SeriesName> seriesNames = new ArrayList<>(); // by id; null: a free id
  private final List<Long> seriesUsedMs = new ArrayList<>(); // by id: the clock at its last request
  private final Map<String, Integer> seriesIds = new HashMap<>();
  private final List<Integer> unsavedSeries = new ArrayList<>();
  private final Map<String, long[]> counters = new TreeMap<>();
  private final List<String> changedCounters = new ArrayList<>();
  private long closedThrough = NONE;
  private boolean closedThroughChanged;
  private long clockMs = NONE;
  private boolean clockChanged;
  private long recordClockMs = NONE; // the clock as the last record left it
  private long recordWallMs = NONE; // this machine's clock when that record was read
  private final List<Bytes> deletions = new ArrayList<>();
  private final BinaryWriter writer = new BinaryWriter(256);

  /** A stage whose changes {@link #writeChanges} writes (the aggregator's). */
  public PartitionStage(StageSettings settings) {
    this(settings, true, false);
  }

  /**
   * @param store false when nothing will ever be written to a store (offline {@code stats}): the
   *     stage then keeps no list of changes
   * @param closeOnFinal true when no producer can join the ones read (the aggregator of one run):
   *     the last window closes as soon as every producer is final, not when the clock passes its
   *     end
   */
  public PartitionStage(StageSettings settings, boolean store, boolean closeOnFinal) {
    this.keepsChanges = store;
    this.closeOnFinal = closeOnFinal;
    this.settings = settings;
    this.goodput = settings.slo().goodput();
    this.windowMs = settings.windowMs();
    this.requestTimeoutMs = settings.requestTimeoutMs();
  }

  /**
   * Why an event read from a record the broker timestamped {@code recordTsMs} is not to be trusted
   * (its time or watermark further ahead of that timestamp than the max clock skew), or null.
   */
  public String distrust(DecodedEvent event, long recordTsMs) {
    long skewMs = settings.maxClockSkewMs();
    if (event.ts() - recordTsMs > skewMs) {
      return ahead("its ts", event.ts(), recordTsMs) + ": check the producer host's clock";
    }
    if (event.type() == EventType.HEARTBEAT && event.watermark() - recordTsMs > skewMs) {
      return ahead("its watermark", event.watermark(), recordTsMs)
          + ": a producer clock that lies, or a forged heartbeat";
    }
    return null;
  }

  private String ahead(String what, long timeMs, long recordTsMs) {
    return what
        + " "
        + Windows.iso(timeMs)
        + " is ahead of the record's broker timestamp "
        + Windows.iso(recordTsMs)
        + " by more than --max-clock-skew "
        + Durations.format(settings.maxClockSkew());
  }

  /**
   * Applies one valid, trusted event (see {@link #distrust}) read from a record of broker timestamp
   * {@code recordTsMs}, with no wall clock (offline: time is the records' alone).
   */
  public void onEvent(DecodedEvent event, long recordTsMs, Stage1Output out) {
    onEvent(event, recordTsMs, Long.MAX_VALUE, out);
  }

  /**
   * Applies one valid, trusted event read from a record of broker timestamp {@code recordTsMs} at
   * {@code wallNowMs} by this machine's clock (a timestamp past it does not move the clock past
   * it).
   */
  public void onEvent(DecodedEvent event, long recordTsMs, long wallNowMs, Stage1Output out) {
    long ts = Math.min(recordTsMs, wallNowMs);
    if (clockMs == NONE || ts > clockMs) {
      clockMs = ts;
      clockChanged = true;
    }
    recordClockMs = clockMs;
    recordWallMs = wallNowMs;
    if (event.type() == EventType.HEARTBEAT) {
      onHeartbeat(event, out);
      return;
    }
    OpenRequest state = requests.get(probe.aim(event.requestKey()));
    if (state != null && event.ts() >= state.lastTsMs + requestTimeoutMs) {
      RequestSamples.abandon(state, requestTimeoutMs, samples);
      remove(state);
      state = null;
    }
    int series = state != null ? state.series : seriesOf(event);
    if (state == null) {
      seriesUsedMs.set(series, clockMs);
    }
    // a request's key is made once, when it starts (or starts again after it was abandoned)
    RequestKey key = state != null ? state.key : new RequestKey(event.requestKey());
    OpenRequest next = RequestSamples.apply(state, key, series, event, goodput, samples);
    if (next == null) {
      if (state != null) {
        remove(state);
      }
    } else {
      if (next != state) {
        requests.put(key, next);
      }
      changed(next);
    }
  }

  /**
   * The end of the input (offline): as if every producer sent its final heartbeat at {@code
   * lastTsMs}, the highest {@code ts} read, so every window up to the one holding it closes.
   */
  public void endOfInput(long lastTsMs, Stage1Output out) {
    long through = Windows.startOf(lastTsMs, settings.windowSize()) + windowMs;
    if (closedThrough == NONE || through > closedThrough) {
      close(closedThrough, through, out);
    }
  }

  /**
   * The wall clock's turn ({@code wallNowMs} by this machine's clock): after {@link #IDLE_MS}
   * without a record, the partition's clock moves on by the time since its last record, so that
   * producers that went silent (killed) stop holding windows and the last windows close.
   */
  public void tick(long wallNowMs, Stage1Output out) {
    if (clockMs == NONE) {
      return;
    }
    if (recordWallMs == NONE || recordWallMs > wallNowMs) {
      recordClockMs = clockMs; // first tick after a restart: idle from now on
      recordWallMs = wallNowMs;
      return;
    }
    long idleMs = wallNowMs - recordWallMs;
    if (idleMs >= IDLE_MS) {
      long moved = Math.min(recordClockMs + idleMs, wallNowMs);
      if (moved > clockMs) {
        clockMs = moved;
        clockChanged = true;
      }
    }
    advance(out, true);
  }

  /**
   * True while the clock alone may still close something: open windows or requests, or a producer
   * not final (one that goes silent must stop holding the partition). Final producers are pruned at
   * the next record; nothing is waiting for that.
   */
  public boolean hasPending() {
    if (!windows.isEmpty() || !requests.isEmpty()) {
      return true;
    }
    for (Producer p : producers.values()) {
      if (!p.mark.isFinal()) {
        return true;
      }
    }
    return false;
  }

  /** The partition's clock (epoch ms), or {@link Long#MIN_VALUE} before any record. */
  public long clockMs() {
    return clockMs;
  }

  /** Producers known on this partition (holding it, or not yet pruned). */
  public int producers() {
    return producers.size();
  }

  /** Series names kept (in use, or used within the producer timeout). */
  public int seriesNames() {
    return seriesIds.size();
  }

  /** The end of the last window closed on this partition, or {@link Long#MIN_VALUE} for none. */
  public long closedThroughMs() {
    return closedThrough;
  }

  /** Adds {@code count} to the partition's counter {@code name} and returns its new total. */
  public long addToCounter(String name, long count) {
    long[] total = counters.computeIfAbsent(name, n -> new long[1]);
    total[0] += count;
    if (!changedCounters.contains(name)) {
      changedCounters.add(name);
    }
    return total[0];
  }

  /** Requests in flight (started, not yet ended, failed or abandoned). */
  public int openRequests() {
    return requests.size();
  }

  /** Windows holding counts not yet emitted. */
  public int openWindows() {
    return windows.size();
  }

  private void onHeartbeat(DecodedEvent e, Stage1Output out) {
    long closed = closedThrough;
    if (e.hasClientPause() || e.hasLoopLag()) {
      long windowStart = startOf(e.ts());
      if (!isClosed(closed, windowStart)) {
        OpenWindow w = window(windowStart);
        if (e.hasClientPause()) {
          w.health.pause(e.clientPauseMaxUs());
        }
        if (e.hasLoopLag()) {
          w.health.lag(e.loopLagMaxUs());
        }
      }
    }
    Producer old = producers.get(e.producerId());
    // A final heartbeat promises no more events at all, so its own ts is a watermark too.
    long watermark = e.finalHeartbeat() ? Math.max(e.watermark(), e.ts()) : e.watermark();
    CloseTime.Mark mark =
        old == null
            ? new CloseTime.Mark(watermark, e.finalHeartbeat(), clockMs)
            : new CloseTime.Mark(
                Math.max(old.mark.watermarkMs(), watermark),
                old.mark.isFinal() || e.finalHeartbeat(),
                clockMs);
    if (old == null || !mark.equals(old.mark)) {
      producers.put(e.producerId(), new Producer(mark, true));
    }
    advance(out, false);
  }

  /**
   * Closes what the producers and the clock now allow, then prunes what is gone: whenever windows
   * closed, and at every tick ({@code tick}), never per heartbeat otherwise (a heartbeat comes from
   * every producer four times a second: pruning then would cost a pass over all producers each).
   */
  private void advance(Stage1Output out, boolean tick) {
    List<CloseTime.Mark> marks = new ArrayList<>(producers.size());
    producers.values().forEach(p -> marks.add(p.mark));
    long through =
        CloseTime.closedThroughMs(
            marks,
            clockMs,
            windowMs,
            settings.graceMs(),
            settings.producerTimeoutMs(),
            closeOnFinal);
    if (through != NONE && (closedThrough == NONE || through > closedThrough)) {
      close(closedThrough, through, out);
      pruneSeries();
      pruneProducers();
    } else if (tick) {
      pruneProducers();
    }
  }

  /** Forgets producers not heard from within the timeout (final or silent): they hold nothing. */
  private void pruneProducers() {
    long timeoutMs = settings.producerTimeoutMs();
    Iterator<Map.Entry<String, Producer>> all = producers.entrySet().iterator();
    while (all.hasNext()) {
      Map.Entry<String, Producer> p = all.next();
      if (clockMs - p.getValue().mark.lastSeenMs() > timeoutMs) {
        all.remove();
        if (keepsChanges) {
          deletions.add(prefixed(PRODUCER, utf8(p.getKey())));
        }
      }
    }
  }

  /**
   * Frees the ids of series that no open request or window uses and that started no request within
   * the producer timeout.
   */
  private void pruneSeries() {
    boolean[] used = new boolean[seriesNames.size()];
    for (OpenRequest r : requests.values()) {
      used[r.series] = true;
    }
    for (OpenWindow w : windows.values()) {
      for (int id = 0; id < w.slots.length; id++) {
        if (w.slots[id] != null) {
          used[id] = true;
        }
      }
    }
    long timeoutMs = settings.producerTimeoutMs();
    for (int id = 0; id < used.length; id++) {
      SeriesName name = seriesNames.get(id);
      if (name != null && !used[id] && clockMs - seriesUsedMs.get(id) > timeoutMs) {
        seriesNames.set(id, null);
        seriesIds.remove(name.series());
        unsavedSeries.remove(Integer.valueOf(id));
        if (keepsChanges) {
          deletions.add(seriesKey(id));
        }
      }
    }
  }

  private void close(long closed, long through, Stage1Output out) {
    expireRequests(through);
    Iterator<OpenWindow> closing = windows.headMap(through, false).values().iterator();
    while (closing.hasNext()) {
      OpenWindow w = closing.next();
      if (w.health.known()) {
        out.windowHealth(w.startMs, w.health.pauseMaxUs(), w.health.lagMaxUs());
      }
      if (w.health.persisted()) {
        deletions.add(healthKey(w.startMs));
      }
      long clamped = 0;
      for (int id = 0; id < w.slots.length; id++) {
        Slot slot = w.slots[id];
        if (slot == null) {
          continue;
        }
        out.partial(w.startMs, seriesNames.get(id), slot.counts);
        clamped += slot.counts.clamped();
        if (slot.persisted) {
          deletions.add(countsKey(w.startMs, id));
        }
      }
      if (clamped > 0) {
        LOG.warn(
            "{} latency values outside 0 µs to 1 h were clamped in the window starting {}",
            clamped,
            Windows.iso(w.startMs));
      }
      closing.remove();
    }
    lastWindow = null;
    closedThrough = through;
    closedThroughChanged = true;
    out.closedThrough(through);
  }

  /** Requests silent until their expiry in a closing window are abandoned there. */
  private void expireRequests(long throughMs) {
    Iterator<OpenRequest> all = requests.values().iterator();
    while (all.hasNext()) {
      OpenRequest r = all.next();
      if (r.lastTsMs + requestTimeoutMs < throughMs) {
        RequestSamples.abandon(r, requestTimeoutMs, samples);
        all.remove();
        gone(r);
      }
    }
  }

  private void remove(OpenRequest r) {
    requests.remove(r.key);
    gone(r);
  }

  private void gone(OpenRequest r) {
    r.removed = true;
    if (r.persisted) {
      changed(r);
    }
  }

  private void changed(OpenRequest r) {
    if (keepsChanges && !r.dirty) {
      r.dirty = true;
      changedRequests.add(r);
    }
  }

  /** The partition's small id of the event's series, assigned on first sight. */
  private int seriesOf(DecodedEvent event) {
    SortedMap<String, String> labels = Series.select(event.labels(), settings.groupBy());
    String series = Series.name(event.model(), labels);
    Integer known = seriesIds.get(series);
    if (known != null) {
      return known;
    }
    int id = seriesNames.indexOf(null);
    SeriesName name = new SeriesName(series, event.model(), labels);
    if (id < 0) {
      id = seriesNames.size();
      seriesNames.add(name);
      seriesUsedMs.add(clockMs);
    } else {
      seriesNames.set(id, name);
      seriesUsedMs.set(id, clockMs);
    }
    seriesIds.put(series, id);
    if (keepsChanges) {
      unsavedSeries.add(id);
    }
    return id;
  }

  private long startOf(long tsMs) {
    return Math.floorDiv(tsMs, windowMs) * windowMs;
  }

  private boolean isClosed(long closed, long windowStartMs) {
    return closed != NONE && windowStartMs + windowMs <= closed;
  }

  private OpenWindow window(long startMs) {
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

  private WindowCounts counts(long windowStartMs, int series) {
    Slot slot = window(windowStartMs).slot(series);
    slot.changed = true;
    return slot.counts;
  }

  // ---- the working set in the store ----

  /** Writes what changed since the last call (deleting what ended) to {@code store}. */
  public void writeChanges(ByteState store) {
    for (Bytes key : deletions) {
      store.delete(key);
    }
    deletions.clear();
    for (OpenRequest r : changedRequests) {
      if (r.removed) {
        if (r.persisted) {
          store.delete(prefixed(REQUEST, r.key.bytes()));
          r.persisted = false;
        }
      } else {
        writer.reset();
        r.writeTo(writer);
        store.put(prefixed(REQUEST, r.key.bytes()), writer.toByteArray());
        r.persisted = true;
      }
      r.dirty = false;
    }
    changedRequests.clear();
    for (OpenWindow w : windows.values()) {
      byte[] health = w.health.changes(writer);
      if (health != null) {
        store.put(healthKey(w.startMs), health);
      }
      for (int id = 0; id < w.slots.length; id++) {
        Slot slot = w.slots[id];
        if (slot != null && slot.changed) {
          writer.reset();
          slot.counts.writeTo(writer);
          store.put(countsKey(w.startMs, id), writer.toByteArray());
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
        store.put(prefixed(PRODUCER, utf8(p.getKey())), writer.toByteArray());
        p.setValue(new Producer(p.getValue().mark, false));
      }
    }
    for (int id : unsavedSeries) {
      writer.reset();
      seriesNames.get(id).writeTo(writer);
      store.put(seriesKey(id), writer.toByteArray());
    }
    unsavedSeries.clear();
    for (String name : changedCounters) {
      writer.reset().writeSigned(counters.get(name)[0]);
      store.put(prefixed(COUNTER, utf8(name)), writer.toByteArray());
    }
    changedCounters.clear();
    if (closedThroughChanged) {
      store.put(CLOSED_THROUGH, writer.reset().writeSigned(closedThrough).toByteArray());
      closedThroughChanged = false;
    }
    if (clockChanged) {
      store.put(CLOCK, writer.reset().writeSigned(clockMs).toByteArray());
      clockChanged = false;
    }
  }

  /** Rebuilds the working set from what {@link #writeChanges} wrote (replacing any). */
  public void load(ByteState store) {
    requests.clear();
    changedRequests.clear();
    windows.clear();
    lastWindow = null;
    producers.clear();
    seriesNames.clear();
    seriesUsedMs.clear();
    seriesIds.clear();
    unsavedSeries.clear();
    counters.clear();
    changedCounters.clear();
    deletions.clear();
    closedThrough = NONE;
    closedThroughChanged = false;
    clockMs = NONE;
    clockChanged = false;
    recordClockMs = NONE;
    recordWallMs = NONE;
    Map<Integer, SeriesName> names = new TreeMap<>();
    store.forEach(
        (key, value) -> {
          byte[] k = key.get();
          BinaryReader in = new BinaryReader(value);
          switch (k[0]) {
            case REQUEST -> {
              RequestKey id = new RequestKey(Arrays.copyOfRange(k, 1, k.length));
              requests.put(id, OpenRequest.readFrom(id, in));
            }
            case COUNTS -> {
              BinaryReader at = new BinaryReader(k, 1, k.length - 1);
              long start = at.readFixedLong();
              Slot slot = window(start).slot(at.readFixedInt());
              slot.counts = WindowCounts.readFrom(in);
              slot.persisted = true;
            }
            case HEALTH -> {
              window(new BinaryReader(k, 1, 8).readFixedLong()).health.restore(in);
            }
            case PRODUCER -> {
              long watermark = in.readSigned();
              boolean isFinal = in.readByte() == 1;
              long lastSeen = in.hasRemaining() ? in.readSigned() : NONE; // NONE: seen at load
              producers.put(
                  new String(k, 1, k.length - 1, StandardCharsets.UTF_8),
                  new Producer(new CloseTime.Mark(watermark, isFinal, lastSeen), false));
            }
            case SERIES ->
                names.put(new BinaryReader(k, 1, 4).readFixedInt(), SeriesName.readFrom(in));
            case COUNTER ->
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
    for (Map.Entry<Integer, SeriesName> n : names.entrySet()) {
      while (seriesNames.size() < n.getKey()) {
        seriesNames.add(null); // an id freed by pruning
        seriesUsedMs.add(NONE);
      }
      seriesNames.add(n.getValue());
      seriesUsedMs.add(clockMs);
      seriesIds.put(n.getValue().series(), n.getKey());
    }
    for (Map.Entry<String, Producer> p : producers.entrySet()) {
      if (p.getValue().mark.lastSeenMs() == NONE) {
        CloseTime.Mark m = p.getValue().mark;
        p.setValue(new Producer(new CloseTime.Mark(m.watermarkMs(), m.isFinal(), clockMs), true));
      }
    }
    for (OpenWindow w : windows.values()) {
      for (Slot slot : w.slots) {
        if (slot != null) {
          slot.changed = false;
        }
      }
    }
    lastWindow = null;
  }

  private static Bytes countsKey(long windowStartMs, int series) {
    return Bytes.wrap(
        new BinaryWriter(13)
            .writeByte(COUNTS)
            .writeFixedLong(windowStartMs)
            .writeFixedInt(series)
            .toByteArray());
  }

  private static Bytes healthKey(long windowStartMs) {
    return Bytes.wrap(
        new BinaryWriter(9).writeByte(HEALTH).writeFixedLong(windowStartMs).toByteArray());
  }

  private static Bytes seriesKey(int id) {
    return Bytes.wrap(new BinaryWriter(5).writeByte(SERIES).writeFixedInt(id).toByteArray());
  }

  private static Bytes prefixed(byte tag, byte[] name) {
    byte[] key = new byte[name.length + 1];
    key[0] = tag;
    System.arraycopy(name, 0, key, 1, name.length);
    return Bytes.wrap(key);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** A producer's promise on this partition; {@code changed} since the last write. */
  private record Producer(CloseTime.Mark mark, boolean changed) {}

  /** One series' counts in one open window. */
  private static final class Slot {
    WindowCounts counts = new WindowCounts();
    boolean changed;
    boolean persisted;
  }

  /** One open window: its series' counts by series id, and the producers' health in it. */
  private static final class OpenWindow {
    final long startMs;
    Slot[] slots = new Slot[4];
    final WindowHealth health = new WindowHealth();

    OpenWindow(long startMs) {
      this.startMs = startMs;
    }

    Slot slot(int series) {
      if (series >= slots.length) {
        slots = Arrays.copyOf(slots, Math.max(series + 1, slots.length * 2));
      }
      Slot slot = slots[series];
      if (slot == null) {
        slot = new Slot();
        slots[series] = slot;
      }
      return slot;
    }
  }

  /**
   * Window assignment for one event: a sample whose window already closed on this partition is
   * dropped and counted as late in the oldest open window of its series.
   */
  private final class Assignment implements Samples {
    @Override
    public boolean latency(Metric metric, int series, long tsMs, long micros, long count) {
      long start = startOf(tsMs);
      if (isClosed(closedThrough, start)) {
        counts(closedThrough, series).lateSamples(count);
        return false;
      }
      counts(start, series).latency(metric, micros, count);
      return true;
    }

    @Override
    public void count(Counter counter, int series, long tsMs, long count) {
      long start = startOf(tsMs);
      if (!isClosed(closedThrough, start)) {
        counter.addTo(counts(start, series), count);
      } else if (counter.countsLate) {
        counts(closedThrough, series).lateSamples(count);
      }
    }

    @Override
    public void failed(int series, long tsMs, String errorClass) {
      long start = startOf(tsMs);
      if (isClosed(closedThrough, start)) {
        counts(closedThrough, series).lateSamples(1);
      } else {
        counts(start, series).failed(errorClass, 1);
      }
    }
  }
}
