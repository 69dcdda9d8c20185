package io.tpotstream.producer.load;

import io.tpotstream.producer.config.Durations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.CallOutcome;
import io.tpotstream.producer.http.EventContext;
import io.tpotstream.producer.http.RequestSpec;
import io.tpotstream.producer.http.StreamingCall;
import io.tpotstream.producer.traffic.Arrivals;
import io.tpotstream.producer.workload.InputLength;
import io.tpotstream.producer.workload.Sessions;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * Drives the load. Closed loop: {@code concurrency} workers, each sends its next request when the
 * previous one finished, models interleaved. Open loop: a scheduler thread releases requests at
 * their intended times (constant or Poisson gaps); with a concurrency cap a due request waits in a
 * FIFO queue and the wait shows as {@code scheduleLagNs}; none is skipped. Nothing here blocks an
 * event loop.
 */
public final class LoadRunner {
  private final Vertx vertx;
  private final HttpClient client;
  private final ProducerConfig config;
  private final Dialect dialect;
  private final EventContext events;
  private final Lanes lanes;
  private final BiConsumer<RequestSpec, CallOutcome> recorder;
  private final Sessions sessions;
  private final long planned;
  private final long deadlineNs;
  private final AtomicLong issued = new AtomicLong();
  private final AtomicLong notSent = new AtomicLong();
  private final Set<StreamingCall> inFlight = ConcurrentHashMap.newKeySet();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final Object admission = new Object();
  private final ArrayDeque<Due> waiting = new ArrayDeque<>();
  private int running;
  private boolean schedulerDone;
  private volatile boolean stopping;
  private Thread scheduler;

  private record Due(long index, long intendedNs) {}

  public LoadRunner(
      Vertx vertx,
      HttpClient client,
      ProducerConfig config,
      Dialect dialect,
      EventContext events,
      Lanes lanes,
      Sessions sessions,
      BiConsumer<RequestSpec, CallOutcome> recorder) {
    this.vertx = vertx;
    this.client = client;
    this.config = config;
    this.dialect = dialect;
    this.events = events;
    this.lanes = lanes;
    this.recorder = recorder;
    this.sessions = sessions;
    this.planned = config.plannedRequests();
    Duration d = config.duration();
    this.deadlineNs =
        d == null || d.equals(Durations.FOREVER) ? Long.MAX_VALUE : System.nanoTime() + d.toNanos();
  }

  /** Starts the load; the future completes when every request sent has finished. */
  public CompletableFuture<Void> start() {
    if (config.openLoop()) {
      scheduler = new Thread(this::schedule, "tpot-scheduler");
      scheduler.setDaemon(true);
      scheduler.start();
    } else {
      AtomicInteger workers = new AtomicInteger(config.concurrency());
      for (int w = 0; w < config.concurrency(); w++) {
        Context lane = lanes.lane(w);
        lane.runOnContext(v -> nextClosed(lane, workers));
      }
    }
    return done;
  }

  /**
   * Stops sending new requests; requests in flight may finish for {@code grace}, then they are
   * cancelled (class {@code cancelled}).
   */
  public void stop(Duration grace) {
    if (stopping) {
      return;
    }
    stopping = true;
    if (scheduler != null) {
      LockSupport.unpark(scheduler);
    }
    synchronized (admission) {
      notSent.addAndGet(waiting.size());
      waiting.clear();
      if (config.openLoop()) {
        maybeDone();
      }
    }
    vertx.setTimer(Math.max(1, grace.toMillis()), id -> cancelInFlight());
  }

  /** Requests now in flight. */
  public int inFlight() {
    return inFlight.size();
  }

  /** Requests handed out so far. */
  public long issued() {
    return Math.min(issued.get(), planned < 0 ? Long.MAX_VALUE : planned);
  }

  /** Due open-loop requests never sent because the run stopped first. */
  public long notSent() {
    return notSent.get();
  }

  private void cancelInFlight() {
    for (StreamingCall call : inFlight) {
      call.cancel();
    }
  }

  private boolean exhausted(long index) {
    return stopping || (planned >= 0 && index >= planned) || System.nanoTime() >= deadlineNs;
  }

  private void nextClosed(Context lane, AtomicInteger workers) {
    long index = issued.getAndIncrement();
    if (exhausted(index)) {
      if (workers.decrementAndGet() == 0) {
        done.complete(null);
      }
      return;
    }
    Planned planned = newCall(index, null);
    StreamingCall call = planned.call();
    inFlight.add(call);
    call.start()
        .onComplete(
            ar -> {
              inFlight.remove(call);
              sessions.finished(planned.turn());
              recorder.accept(planned.spec(), ar.result());
              // a fresh turn of the loop: no recursion even if a request fails synchronously
              lane.runOnContext(v -> nextClosed(lane, workers));
            });
  }

  private void schedule() {
    Arrivals arrivals = new Arrivals(config.rateSchedule(), config.arrival(), config.seed());
    long startNs = System.nanoTime();
    for (long index = 0; ; index++) {
      long offsetNs = arrivals.nextNs();
      long intendedNs = startNs + offsetNs;
      if (offsetNs < 0 || exhausted(index) || intendedNs >= deadlineNs) {
        break;
      }
      parkUntil(intendedNs);
      if (stopping) {
        break;
      }
      issued.incrementAndGet();
      Due due = new Due(index, intendedNs);
      lanes.lane(index).runOnContext(v -> admit(due));
    }
    synchronized (admission) {
      schedulerDone = true;
      maybeDone();
    }
  }

  private void parkUntil(long deadline) {
    long left;
    while ((left = deadline - System.nanoTime()) > 0 && !stopping) {
      LockSupport.parkNanos(left);
    }
  }

  private void admit(Due due) {
    synchronized (admission) {
      if (stopping) {
        notSent.incrementAndGet();
        maybeDone();
        return;
      }
      if (config.concurrency() != null && running >= config.concurrency()) {
        waiting.add(due);
        return;
      }
      running++;
    }
    launch(due);
  }

  private void launch(Due due) {
    Planned planned = newCall(due.index(), due.intendedNs());
    StreamingCall call = planned.call();
    inFlight.add(call);
    call.start()
        .onComplete(
            ar -> {
              inFlight.remove(call);
              sessions.finished(planned.turn());
              recorder.accept(planned.spec(), ar.result());
              Due next;
              synchronized (admission) {
                next = waiting.poll();
                if (next == null) {
                  running--;
                  maybeDone();
                }
              }
              if (next != null) {
                Due queued = next;
                lanes.lane(queued.index()).runOnContext(v -> launch(queued));
              }
            });
  }

  /** Completes the run once the scheduler ended and nothing runs or waits; holds admission. */
  private void maybeDone() {
    if ((schedulerDone || stopping) && running == 0 && waiting.isEmpty()) {
      done.complete(null);
    }
  }

  /** A call, the conversation turn it sends and its spec. */
  private record Planned(StreamingCall call, Sessions.Request turn, RequestSpec spec) {}

  private Planned newCall(long index, Long intendedNs) {
    // every model sees the same sequence of conversations (Sessions), turns in order
    Sessions.Request turn = sessions.next();
    SortedMap<String, String> labels = config.labels();
    if (turn.inputLength() != null) {
      labels = new TreeMap<>(labels);
      labels.put(InputLength.LABEL, turn.inputLength());
    }
    Integer maxTokens =
        turn.input().maxTokens() != null ? turn.input().maxTokens() : config.maxTokens();
    RequestSpec spec =
        new RequestSpec(
            events.runId() + "-" + index,
            turn.model(),
            turn.input().messages(),
            intendedNs,
            maxTokens,
            labels);
    return new Planned(new StreamingCall(vertx, client, config, dialect, events, spec), turn, spec);
  }
}
