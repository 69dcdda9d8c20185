package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.aggregator.partial.WindowCounts;
import io.tpotstream.aggregator.state.ByteState;
import io.tpotstream.common.Durations;
import io.tpotstream.common.Windows;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.slo.GoodputLimits;
import java.util.Iterator;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.kafka.common.utils.Bytes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage 1 for one input partition: per-request samples and engine scrape intervals into partial
 * windows, producer watermarks into a close time, and, when the close time crosses window ends, the
 * closed windows' partials followed by a rising {@code closedThrough} marker.
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

  /** Where the aggregator keeps the settings the state was built with (this class ignores it). */
  public static final Bytes SETTINGS = Bytes.wrap(new byte[] {'s'});

  /**
   * How long a partition must have read nothing before the wall clock moves its clock on: a live
   * producer sends a heartbeat to every partition every second, and a backlog read at speed is
   * never this quiet.
   */
  static final long IDLE_MS = 2_000;

  /** A {@code confirmedAtMs} that takes every silence as real. */
  public static final long ALWAYS_CONFIRMED = Long.MAX_VALUE;

  /** How far apart two of the broker's answers may be and still confirm the time between them. */
  public static final long CONFIRMATION_GAP_MS = 3_000;

  private final boolean keepsChanges;
  private final boolean closeOnFinal;
  private final StageSettings settings;
  private final GoodputLimits goodput;
  private final long windowMs;
  private final long maxClockSkewMs;
  private final long requestTimeoutMs;
  private final Assignment samples = new Assignment();

  private final RequestKey probe = RequestKey.probe();
  private final WorkingSet ws;
  private final Holders holders = new Holders();
  private final IntFunction<WindowCounts> spares; // ws::takeSpare, made once
  private long recordClockMs = NONE; // the clock as the last record left it
  private long recordWallMs = NONE; // this machine's clock when that record was read
  private long lastConfirmedMs = NONE; // the broker's last answer counted, by this machine's clock
  private long silentMs; // confirmed silence since the last record
  private long lastStartMs = Long.MAX_VALUE; // the window start startOf found last (none at first)

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
    this.ws = new WorkingSet(store);
    this.spares = ws::takeSpare;
    this.closeOnFinal = closeOnFinal;
    this.settings = settings;
    this.goodput = settings.slo().goodput();
    this.windowMs = settings.windowMs();
    this.maxClockSkewMs = settings.maxClockSkewMs();
    this.requestTimeoutMs = settings.requestTimeoutMs();
  }

  /**
   * Why an event read from a record the broker timestamped {@code recordTsMs} is not to be trusted,
   * or null: its time or watermark further ahead of that timestamp than the max clock skew, or a
   * watermark further behind it (a producer whose clock is in the past would hold every window
   * open; one that comes back from an outage holds its events less than the skew).
   */
  public String distrust(DecodedEvent event, long recordTsMs) {
    if (difference(event.ts(), recordTsMs) > maxClockSkewMs) {
      return ahead("its ts", event.ts(), recordTsMs) + ": check the producer host's clock";
    }
    if (event.type() == EventType.HEARTBEAT) {
      if (difference(event.watermark(), recordTsMs) > maxClockSkewMs) {
        return ahead("its watermark", event.watermark(), recordTsMs)
            + ": a producer clock that lies, or a forged heartbeat";
      }
      if (difference(recordTsMs, event.watermark()) > maxClockSkewMs) {
        return off("its watermark", event.watermark(), "behind", recordTsMs)
            + ": a producer clock in the past, or a forged heartbeat";
      }
    }
    return null;
  }

  private String ahead(String what, long timeMs, long recordTsMs) {
    return off(what, timeMs, "ahead of", recordTsMs);
  }

  private String off(String what, long timeMs, String where, long recordTsMs) {
    return what
        + " "
        + Windows.iso(timeMs)
        + " is "
        + where
        + " the record's broker timestamp "
        + Windows.iso(recordTsMs)
        + " by more than --max-clock-skew "
        + Durations.format(settings.maxClockSkew());
  }

  /** {@code a - b}, saturated instead of overflowing. */
  static long difference(long a, long b) {
    long d = a - b;
    if (((a ^ b) & (a ^ d)) < 0) {
      return a > b ? Long.MAX_VALUE : Long.MIN_VALUE;
    }
    return d;
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
    if (ws.clockMs == NONE || ts > ws.clockMs) {
      if (ws.clockMs != NONE && ts - ws.clockMs > IDLE_MS) {
        excuse(ts - ws.clockMs);
      }
      ws.clockMs = ts;
      ws.clockChanged = true;
    }
    recordClockMs = ws.clockMs;
    recordWallMs = wallNowMs;
    silentMs = 0;
    if (event.type() == EventType.HEARTBEAT) {
      onHeartbeat(event, out);
      return;
    }
    if (event.type() == EventType.ENGINE) {
      onEngine(event);
      return;
    }
    OpenRequest state = ws.requests.get(probe.aim(event.requestKey()));
    if (state != null && !state.abandoned && event.ts() >= state.lastTsMs + requestTimeoutMs) {
      RequestSamples.abandon(state, requestTimeoutMs, samples);
      state.abandoned = true;
    }
    if (state != null && state.abandoned) {
      // counted once, as abandoned: what it sends after that is not a second request
      state.lastTsMs = Math.max(state.lastTsMs, event.ts());
      if (event.type() == EventType.END || event.type() == EventType.ERROR) {
        remove(state);
      } else {
        changed(state);
      }
      return;
    }
    int id = state != null ? state.series : ws.series.of(event, settings.groupBy(), ws.clockMs);
    if (state == null) {
      ws.series.used(id, ws.clockMs);
    }
    // a request's key is made once, when it starts (or starts again after it was abandoned)
    RequestKey key = state != null ? state.key : new RequestKey(event.requestKey());
    OpenRequest next = RequestSamples.apply(state, key, id, event, goodput, samples);
    if (next == null) {
      if (state != null) {
        remove(state);
      }
    } else {
      if (next != state) {
        ws.requests.put(key, next);
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
    if (ws.closedThrough == NONE || through > ws.closedThrough) {
      close(ws.closedThrough, through, out);
    }
  }

  /**
   * The wall clock's turn with every silence taken as real (tests, or a reader that knows it has
   * read everything): see {@link #tick(long, long, Stage1Output)}.
   */
  public void tick(long wallNowMs, Stage1Output out) {
    tick(wallNowMs, ALWAYS_CONFIRMED, out);
  }

  /**
   * The wall clock's turn ({@code wallNowMs} by this machine's clock). {@code confirmedAtMs} is
   * when the broker last answered that this partition had nothing more to read ({@link
   * Long#MIN_VALUE}: its last answer said otherwise, or it has not answered; {@link
   * #ALWAYS_CONFIRMED}: every silence is real). Silence counts only between two such answers at
   * most {@link #CONFIRMATION_GAP_MS} apart, after the last record: a broker outage, a stalled
   * fetch or a paused host is not silence, and neither is the moment after a broker comes back,
   * before the producers that held their events through the outage have reconnected. Once the
   * partition has been silent for {@link #IDLE_MS}, its clock moves on by that silence, so that
   * producers that went silent (killed) stop holding windows and the last windows close.
   */
  public void tick(long wallNowMs, long confirmedAtMs, Stage1Output out) {
    if (ws.clockMs == NONE) {
      return;
    }
    if (recordWallMs == NONE || recordWallMs > wallNowMs) {
      recordClockMs = ws.clockMs; // first tick after a restart: idle from now on
      recordWallMs = wallNowMs;
      lastConfirmedMs = NONE;
      silentMs = 0;
      return;
    }
    if (confirmedAtMs == ALWAYS_CONFIRMED) {
      silentMs = wallNowMs - recordWallMs;
    } else if (confirmedAtMs == NONE) {
      lastConfirmedMs = NONE; // the chain of answers is broken
    } else if (confirmedAtMs > lastConfirmedMs) {
      if (lastConfirmedMs != NONE && confirmedAtMs - lastConfirmedMs <= CONFIRMATION_GAP_MS) {
        silentMs += Math.max(0, confirmedAtMs - Math.max(lastConfirmedMs, recordWallMs));
      }
      lastConfirmedMs = confirmedAtMs;
    }
    if (silentMs >= IDLE_MS) {
      long moved = Math.min(recordClockMs + silentMs, wallNowMs);
      if (moved > ws.clockMs) {
        ws.clockMs = moved;
        ws.clockChanged = true;
      }
    }
    advance(out, true);
  }

  /**
   * The log of this partition was silent for {@code gapMs} that no confirmed tick accounted for (a
   * broker outage, or a backlog read later): its producers could not be heard, so their silence
   * starts again from now. Those not final time out only on time the log was open to them.
   */
  private void excuse(long gapMs) {
    for (Map.Entry<String, WorkingSet.Producer> p : ws.producers.entrySet()) {
      CloseTime.Mark m = p.getValue().mark();
      if (!m.holds(ws.clockMs, settings.producerTimeoutMs())) {
        continue; // final (it promised nothing more) or already silent before the gap
      }
      p.setValue(
          new WorkingSet.Producer(
              new CloseTime.Mark(m.watermarkMs(), m.isFinal(), m.lastSeenMs() + gapMs), true));
    }
  }

  /**
   * True while the clock alone may still close something: open ws.windows or ws.requests, a
   * producer not final (one that goes silent must stop holding the partition), or the window the
   * last record fell in. That window may hold nothing here, but stage 2 emits a window only once
   * every partition has closed it, and other partitions may hold data there. Final ws.producers are
   * pruned at the next record; nothing is waiting for that.
   */
  public boolean hasPending() {
    if (!ws.windows.isEmpty() || !ws.requests.isEmpty()) {
      return true;
    }
    long lastRecordMs = recordClockMs != NONE ? recordClockMs : ws.clockMs; // NONE: just loaded
    if (lastRecordMs != NONE && !isClosed(ws.closedThrough, startOf(lastRecordMs))) {
      return true;
    }
    return holders.anyNotFinal();
  }

  /** The partition's clock (epoch ms), or {@link Long#MIN_VALUE} before any record. */
  public long clockMs() {
    return ws.clockMs;
  }

  /** Producers known on this partition (holding it, or not yet pruned). */
  public int producers() {
    return ws.producers.size();
  }

  /** Series names kept (in use, or used within the producer timeout). */
  public int seriesNames() {
    return ws.series.kept();
  }

  /** The end of the last window closed on this partition, or {@link Long#MIN_VALUE} for none. */
  public long closedThroughMs() {
    return ws.closedThrough;
  }

  /** Adds {@code count} to the partition's counter {@code name} and returns its new total. */
  public long addToCounter(String name, long count) {
    long[] total = ws.counters.computeIfAbsent(name, n -> new long[1]);
    total[0] += count;
    if (!ws.changedCounters.contains(name)) {
      ws.changedCounters.add(name);
    }
    return total[0];
  }

  /** Requests in flight (started, not yet ended, failed or abandoned). */
  public int openRequests() {
    return ws.requests.size();
  }

  /** Windows holding counts not yet emitted. */
  public int openWindows() {
    return ws.windows.size();
  }

  private void onHeartbeat(DecodedEvent e, Stage1Output out) {
    long closed = ws.closedThrough;
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
    WorkingSet.Producer old = ws.producers.get(e.producerId());
    // A final heartbeat promises no more events at all, so its own ts is a watermark too.
    long watermark = e.finalHeartbeat() ? Math.max(e.watermark(), e.ts()) : e.watermark();
    // Final is what the producer's latest heartbeat says: a final mark forged with its id releases
    // it only until its next heartbeat, not for good.
    CloseTime.Mark mark =
        old == null
            ? new CloseTime.Mark(watermark, e.finalHeartbeat(), ws.clockMs)
            : new CloseTime.Mark(
                Math.max(old.mark().watermarkMs(), watermark), e.finalHeartbeat(), ws.clockMs);
    if (old == null || !mark.equals(old.mark())) {
      ws.producers.put(e.producerId(), new WorkingSet.Producer(mark, true));
      holders.changed(e.producerId(), old == null ? null : old.mark(), mark);
    }
    advance(out, false);
  }

  /**
   * One scrape interval of an engine: added to the window holding its {@code ts} for its series
   * (its model and labels, as a request's start gives it), or, when that window has closed here,
   * counted as a late sample in the series' oldest open window. Its producer holds no window and is
   * not registered: only heartbeats do that.
   */
  private void onEngine(DecodedEvent e) {
    int id = ws.series.of(e, settings.groupBy(), ws.clockMs);
    ws.series.used(id, ws.clockMs);
    long start = startOf(e.ts());
    if (isClosed(ws.closedThrough, start)) {
      counts(ws.closedThrough, id).lateSamples(1);
    } else {
      counts(start, id).engine(e.engine());
    }
  }

  /**
   * Closes what the ws.producers and the clock now allow, then prunes what is gone: whenever
   * ws.windows closed, and at every tick ({@code tick}), never per heartbeat otherwise (a heartbeat
   * comes from every producer four times a second: pruning then would cost a pass over all
   * ws.producers each).
   */
  private void advance(Stage1Output out, boolean tick) {
    long through =
        CloseTime.closedThroughMs(
            holders.lowestHoldingMs(ws.producers, ws.clockMs, settings.producerTimeoutMs()),
            holders.allFinal(ws.producers.size()),
            holders.highestFinalMs(),
            ws.clockMs,
            windowMs,
            settings.graceMs(),
            closeOnFinal);
    if (through != NONE && (ws.closedThrough == NONE || through > ws.closedThrough)) {
      close(ws.closedThrough, through, out);
      pruneSeries();
      pruneProducers();
    } else if (tick) {
      pruneProducers();
    }
  }

  /**
   * Forgets ws.producers not heard from within the timeout (final or silent): they hold nothing.
   */
  private void pruneProducers() {
    long timeoutMs = settings.producerTimeoutMs();
    Iterator<Map.Entry<String, WorkingSet.Producer>> all = ws.producers.entrySet().iterator();
    while (all.hasNext()) {
      Map.Entry<String, WorkingSet.Producer> p = all.next();
      if (ws.clockMs - p.getValue().mark().lastSeenMs() > timeoutMs) {
        all.remove();
        holders.removed(p.getKey(), p.getValue().mark());
        if (keepsChanges) {
          ws.deletions.add(StageKeys.prefixed(StageKeys.PRODUCER, p.getKey()));
        }
      }
    }
  }

  /**
   * Frees the ids of series that no open request or window uses and that started no request within
   * the producer timeout.
   */
  private void pruneSeries() {
    boolean[] used = new boolean[ws.series.size()];
    for (OpenRequest r : ws.requests.values()) {
      used[r.series] = true;
    }
    for (OpenWindow w : ws.windows.values()) {
      for (int id = 0; id < w.slots.length; id++) {
        if (w.slots[id] != null) {
          used[id] = true;
        }
      }
    }
    ws.series.prune(
        used,
        ws.clockMs,
        settings.producerTimeoutMs(),
        id -> {
          ws.dropSpare(id);
          if (keepsChanges) {
            ws.deletions.add(StageKeys.seriesKey(id));
          }
        });
  }

  private void close(long closed, long through, Stage1Output out) {
    expireRequests(through);
    Iterator<OpenWindow> closing = ws.windows.headMap(through, false).values().iterator();
    while (closing.hasNext()) {
      OpenWindow w = closing.next();
      if (w.health.known()) {
        out.windowHealth(w.startMs, w.health.pauseMaxUs(), w.health.lagMaxUs());
      }
      if (w.health.persisted()) {
        ws.deletions.add(StageKeys.healthKey(w.startMs));
      }
      long clamped = 0;
      for (int id = 0; id < w.slots.length; id++) {
        OpenWindow.Slot slot = w.slots[id];
        if (slot == null) {
          continue;
        }
        out.partial(w.startMs, ws.series.name(id), slot.counts);
        clamped += slot.counts.clamped();
        if (slot.persisted) {
          ws.deletions.add(StageKeys.countsKey(w.startMs, id));
        }
        ws.spare(id, slot.counts); // emitted: its tables count the series' next window
      }
      if (clamped > 0) {
        LOG.warn(
            "{} latency values outside 0 µs to 1 h were clamped in the window starting {}",
            clamped,
            Windows.iso(w.startMs));
      }
      closing.remove();
    }
    ws.lastWindow = null;
    ws.closedThrough = through;
    ws.closedThroughChanged = true;
    out.closedThrough(through);
  }

  /**
   * Requests silent until their expiry in a closing window are abandoned there; each is kept one
   * more request timeout, so that events it sends after that are recognised and not counted as a
   * second request, then forgotten.
   */
  private void expireRequests(long throughMs) {
    Iterator<OpenRequest> all = ws.requests.values().iterator();
    while (all.hasNext()) {
      OpenRequest r = all.next();
      if (r.lastTsMs + requestTimeoutMs < throughMs) {
        if (r.abandoned) {
          all.remove();
          gone(r);
        } else {
          RequestSamples.abandon(r, requestTimeoutMs, samples);
          r.abandoned = true;
          r.lastTsMs += requestTimeoutMs; // its expiry: forgotten one timeout after it
          changed(r);
        }
      }
    }
  }

  private void remove(OpenRequest r) {
    ws.requests.remove(r.key);
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
      ws.changedRequests.add(r);
    }
  }

  /** The start of the window holding {@code tsMs}; the last one found is kept (no division). */
  private long startOf(long tsMs) {
    long start = lastStartMs;
    if (tsMs < start || tsMs - start >= windowMs) {
      start = Math.floorDiv(tsMs, windowMs) * windowMs;
      lastStartMs = start;
    }
    return start;
  }

  private boolean isClosed(long closed, long windowStartMs) {
    return closed != NONE && windowStartMs + windowMs <= closed;
  }

  private OpenWindow window(long startMs) {
    return ws.window(startMs);
  }

  private WindowCounts counts(long windowStartMs, int series) {
    OpenWindow.Slot slot = window(windowStartMs).slot(series, spares);
    slot.changed = true;
    return slot.counts;
  }

  /** Writes what changed since the last call (deleting what ended) to {@code store}. */
  public void writeChanges(ByteState store) {
    ws.writeChanges(store);
  }

  /** Rebuilds the working set from what {@link #writeChanges} wrote (replacing any). */
  public void load(ByteState store) {
    ws.load(store);
    holders.rebuild(ws.producers);
    recordClockMs = NONE;
    recordWallMs = NONE;
    lastConfirmedMs = NONE;
    silentMs = 0;
  }

  /**
   * Window assignment for one event: a sample whose window already closed on this partition is
   * dropped and counted as late in the oldest open window of its ws.series.
   */
  private final class Assignment implements Samples {
    @Override
    public boolean latency(Metric metric, int series, long tsMs, long micros, long count) {
      long start = startOf(tsMs);
      if (isClosed(ws.closedThrough, start)) {
        counts(ws.closedThrough, series).lateSamples(count);
        return false;
      }
      counts(start, series).latency(metric, micros, count);
      return true;
    }

    @Override
    public void count(Counter counter, int series, long tsMs, long count) {
      long start = startOf(tsMs);
      if (!isClosed(ws.closedThrough, start)) {
        counter.addTo(counts(start, series), count);
      } else if (counter.countsLate) {
        counts(ws.closedThrough, series).lateSamples(count);
      }
    }

    @Override
    public void failed(int series, long tsMs, String errorClass) {
      long start = startOf(tsMs);
      if (isClosed(ws.closedThrough, start)) {
        counts(ws.closedThrough, series).lateSamples(1);
      } else {
        counts(start, series).failed(errorClass, 1);
      }
    }
  }
}
