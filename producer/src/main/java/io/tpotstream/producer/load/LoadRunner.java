package io.tpotstream.producer.load;

import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.config.WarmupBudget;
import io.tpotstream.producer.http.CallContext;
import io.tpotstream.producer.http.EndpointBackoff;
import io.tpotstream.producer.http.FailFast;
import io.tpotstream.producer.http.RequestSpec;
import io.tpotstream.producer.http.StreamingCall;
import io.tpotstream.producer.traffic.Arrivals;
import io.tpotstream.producer.traffic.RateSchedule;
import io.tpotstream.producer.traffic.Schedule;
import io.tpotstream.producer.traffic.TraceSchedule;
import io.tpotstream.producer.workload.Sessions;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Drives the load. Closed loop: {@code concurrency} workers, each sends its next request when the
 * previous one finished, models interleaved. Open loop: a scheduler thread releases requests at
 * their intended times ({@link Arrivals}: constant or Poisson gaps along the rate or the {@code
 * schedule}, which starts with the run's own requests); with a concurrency cap a due request waits
 * in a FIFO queue and the wait shows as {@code scheduleLagNs}; none is skipped unless the endpoint
 * does not answer ({@link EndpointBackoff}: a closed-loop worker waits, a due open-loop request is
 * not sent and counted so). Models a failure no retry can fix stopped get nothing more ({@link
 * FailFast}). What each request sends comes from {@link Sessions} (a conversation's turns in order,
 * each with its own {@code max_tokens} and {@code input_len} label). The warm-up comes first, with
 * the same load (its request ids are {@code <run>-w<n>}); the run's own requests ({@code
 * <run>-<n>}, {@code total_requests} per model or {@code duration}) follow. Nothing here blocks an
 * event loop.
 */
public final class LoadRunner {
  /** The longest a closed-loop worker waits before asking a backed-off endpoint again, in ms. */
  private static final long MAX_BACKOFF_POLL_MS = 500;

  /**
   * How often a timed warm-up's end is checked: 200 streams read 20,000 chunks a second, so a
   * budget of chunks is overrun by at most 500 of them.
   */
  private static final long WARMUP_CHECK_MS = 25;

  private final CallContext run;
  private final Vertx vertx;
  private final ProducerConfig config;
  private final Lanes lanes;
  private final Tickets tickets;
  private final AtomicLong issued = new AtomicLong();
  private final AtomicLong notSent = new AtomicLong();
  private final Set<StreamingCall> inFlight = ConcurrentHashMap.newKeySet();
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final Object admission = new Object();
  private final ArrayDeque<Due> waiting = new ArrayDeque<>();
  private int running;
  private boolean schedulerDone;

  /** Open-loop requests handed to a loop and not yet admitted there (guarded by admission). */
  private int dispatched;

  private volatile boolean stopping;
  private Runnable afterWarmup = () -> {};
  private Thread scheduler;

  private record Due(long lane, Tickets.Ticket ticket) {}

  /**
   * @param run what every call shares (the stage's config among it)
   * @param sessions what to send, shared by the stages of a sweep (so that they go on through the
   *     dataset); a warm-up has its own
   */
  public LoadRunner(CallContext run, Lanes lanes, Sessions sessions) {
    this.run = run;
    this.vertx = run.vertx();
    this.config = run.config();
    this.lanes = lanes;
    this.tickets = new Tickets(config, run.dialect(), sessions, run.failFast()::stopped);
  }

  /**
   * Runs {@code action} (on an event loop: it must not block) when a timed warm-up ends, before the
   * run's first request.
   */
  public void afterWarmup(Runnable action) {
    this.afterWarmup = action;
  }

  /** Starts the load; the future completes when every request sent has finished. */
  public CompletableFuture<Void> start() {
    tickets.start(System.nanoTime());
    if (config.warmup().duration() != null) {
      // a timed warm-up lasts its time, then on until the JIT has settled (at most a minute more);
      // a local one until the JIT has settled, within its budget of time and chunks
      JitWatch jit = new JitWatch();
      long[] checks = {0};
      boolean[] settled = {false};
      vertx.setPeriodic(
          WARMUP_CHECK_MS,
          id -> {
            if (++checks[0] % (1000 / WARMUP_CHECK_MS) == 0) {
              settled[0] = jit.check(); // once a second
            }
            if (tickets.endWarmupIfSettled(
                System.nanoTime(), settled[0], run.warmupChunks().getAsLong())) {
              vertx.cancelTimer(id);
              afterWarmup.run();
            }
          });
    }
    if (config.openLoop()) {
      scheduler = new Thread(this::schedule, "tpot-scheduler");
      scheduler.setDaemon(true);
      scheduler.start();
    } else {
      AtomicInteger workers = new AtomicInteger(config.concurrency());
      for (int w = 0; w < config.concurrency(); w++) {
        Lanes.Lane lane = lanes.lane(w);
        lane.context().runOnContext(v -> nextClosed(lane, workers));
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
    tickets.stop();
    if (scheduler != null) {
      LockSupport.unpark(scheduler);
    }
    synchronized (admission) {
      notSent.addAndGet(waiting.size());
      waiting.forEach(due -> due.ticket().done());
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

  /** Requests handed out so far, warm-up included. */
  public long issued() {
    return issued.get();
  }

  /** Warm-up requests handed out so far. */
  public long warmupIssued() {
    return tickets.warmupIssued();
  }

  /** True while the warm-up is under way (its requests are still being handed out). */
  public boolean warmingUp() {
    return tickets.warmingUp(System.nanoTime());
  }

  /**
   * How the warm-up ended: its length, and whether the JIT had settled by then; null while it lasts
   * or when there was none.
   */
  public WarmupEnd warmupEnd() {
    return tickets.warmupEnd();
  }

  /**
   * The end of a warm-up.
   *
   * @param after from the start of the load
   * @param jitSettled false when it ended at its limit with the JIT still compiling
   * @param chunks token chunks its requests had streamed by then
   * @param budget a local warm-up's budget; null for any other
   */
  public record WarmupEnd(Duration after, boolean jitSettled, long chunks, WarmupBudget budget) {}

  /** Due open-loop requests never sent because the run stopped first. */
  public long notSent() {
    return notSent.get();
  }

  private void cancelInFlight() {
    for (StreamingCall call : inFlight) {
      call.cancel();
    }
  }

  private void nextClosed(Lanes.Lane lane, AtomicInteger workers) {
    long nowNs = System.nanoTime();
    long waitNs = tickets.over(nowNs) || toLocalWarmup(nowNs) ? 0 : run.backoff().admit(nowNs);
    if (waitNs > 0) {
      // the endpoint is backed off from: ask again later (soon enough to see a stop or the end)
      long waitMs = Math.max(1, Math.min(MAX_BACKOFF_POLL_MS, waitNs / 1_000_000));
      vertx.setTimer(waitMs, id -> nextClosed(lane, workers));
      return;
    }
    Tickets.Ticket ticket = tickets.next(nowNs, null);
    if (ticket == null) {
      if (workers.decrementAndGet() == 0) {
        done.complete(null);
      }
      return;
    }
    issued.incrementAndGet();
    StreamingCall call = new StreamingCall(run, lane.client(), ticket.spec());
    inFlight.add(call);
    call.start()
        .onComplete(
            ar -> {
              inFlight.remove(call);
              ticket.done();
              ended(ticket.spec(), call);
              // a fresh turn of the loop: no recursion even if a request fails synchronously
              lane.context().runOnContext(v -> nextClosed(lane, workers));
            });
  }

  /** What a call that ended tells the fail-fast watch and the endpoint's backoff. */
  private void ended(RequestSpec spec, StreamingCall call) {
    if (reachedTheEndpoint(spec)) {
      run.failFast().observe(spec.model(), call.loopFailure());
      run.backoff().ended(call.endpointOutcome(), System.nanoTime());
    }
  }

  /** True when the next request would go to a local warm-up's simulator, not the endpoint. */
  private boolean toLocalWarmup(long nowNs) {
    return run.warmupUrl() != null && !tickets.warmupOver(nowNs);
  }

  /** False for a local warm-up's request: the simulator in this process answered it. */
  private boolean reachedTheEndpoint(RequestSpec spec) {
    return !spec.warmup() || run.warmupUrl() == null;
  }

  private void schedule() {
    long baseNs = System.nanoTime();
    boolean warm = !tickets.warmupOver(baseNs);
    Schedule arrivals = warm ? warmupSchedule() : runSchedule();
    try {
      for (long index = 0; ; index++) {
        long offsetNs = arrivals.nextNs();
        if (offsetNs < 0) {
          break;
        }
        long intendedNs = baseNs + offsetNs;
        if (warm && tickets.warmupOver(intendedNs)) {
          warm = false;
          arrivals.close();
          arrivals = runSchedule();
          baseNs = intendedNs;
          offsetNs = arrivals.nextNs();
          if (offsetNs < 0) {
            break;
          }
          intendedNs = baseNs + offsetNs;
        }
        Tickets.Ticket ticket = tickets.next(intendedNs, intendedNs, arrivals.due());
        if (ticket == null) {
          break;
        }
        if (ticket.skipped()) {
          continue; // a stopped model's request of a trace
        }
        parkUntil(intendedNs);
        if (stopping) {
          ticket.done();
          break;
        }
        issued.incrementAndGet();
        Due due = new Due(index, ticket);
        synchronized (admission) {
          // on its way to a loop: the run is not done before it is admitted or counted as not sent
          dispatched++;
        }
        Runnable toLoop = () -> lanes.lane(due.lane()).context().runOnContext(v -> admit(due));
        if (ticket.after() == null) {
          toLoop.run();
        } else {
          // a trace's later turn goes once the turn before it ended: the wait is its lag
          ticket.after().whenComplete((v, e) -> toLoop.run());
        }
      }
    } finally {
      arrivals.close();
      synchronized (admission) {
        schedulerDone = true;
        maybeDone();
      }
    }
  }

  /**
   * The run's own arrivals: the trace's (again and again when the run goes on forever), or the
   * rate's along its schedule.
   */
  private Schedule runSchedule() {
    TraceSchedule trace = config.trace();
    if (trace != null) {
      return trace.replay(ConfigDurations.FOREVER.equals(config.duration()));
    }
    return new Arrivals(config.rateSchedule(), config.arrival(), config.seed());
  }

  /**
   * The warm-up's arrivals: the trace's from its start (again if the warm-up outlasts it), or the
   * schedule's first rate; the schedule itself starts with the run's requests.
   */
  private Schedule warmupSchedule() {
    TraceSchedule trace = config.trace();
    if (trace != null) {
      return trace.replay(true);
    }
    RateSchedule rates = config.rateSchedule();
    return new Arrivals(
        rates.rateAt(0) > 0 ? RateSchedule.constant(rates.rateAt(0)) : rates,
        config.arrival(),
        config.seed());
  }

  private void parkUntil(long deadline) {
    long left;
    while ((left = deadline - System.nanoTime()) > 0 && !stopping) {
      LockSupport.parkNanos(left);
    }
  }

  private void admit(Due due) {
    synchronized (admission) {
      dispatched--;
      if (stopping) {
        notSent.incrementAndGet();
        due.ticket().done();
        maybeDone();
        return;
      }
      if (reachedTheEndpoint(due.ticket().spec()) && run.backoff().admit(System.nanoTime()) > 0) {
        // the endpoint does not answer: this request is not sent (it would fail at once)
        run.backoff().heldBack();
        notSent.incrementAndGet();
        due.ticket().done();
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
    Lanes.Lane lane = lanes.lane(due.lane());
    StreamingCall call = new StreamingCall(run, lane.client(), due.ticket().spec());
    inFlight.add(call);
    call.start()
        .onComplete(
            ar -> {
              inFlight.remove(call);
              due.ticket().done();
              ended(due.ticket().spec(), call);
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
                lanes.lane(queued.lane()).context().runOnContext(v -> launch(queued));
              }
            });
  }

  /** Completes the run once the scheduler ended and nothing runs or waits; holds admission. */
  private void maybeDone() {
    if ((schedulerDone || stopping) && dispatched == 0 && running == 0 && waiting.isEmpty()) {
      done.complete(null);
    }
  }
}
