package io.tpotstream.producer.load;

import io.tpotstream.common.Json;
import io.tpotstream.producer.config.Arrival;
import io.tpotstream.producer.config.Durations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.config.Warmup;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.RequestSpec;
import io.tpotstream.producer.http.StreamingCall;
import io.tpotstream.producer.publish.Handoff;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Drives the load. Closed loop: {@code concurrency} workers, each sends its next request when the
 * previous one finished, models interleaved. Open loop: a scheduler thread releases requests at
 * their intended times (constant or Poisson gaps); with a concurrency cap a due request waits in a
 * FIFO queue and the wait shows as {@code scheduleLagNs}; none is skipped. The warm-up comes first,
 * with the same load (its request ids are {@code <run>-w<n>}); the run's own requests ({@code
 * <run>-<n>}, {@code total_requests} per model or {@code duration}) follow. Nothing here blocks an
 * event loop.
 */
public final class LoadRunner {
  private final Vertx vertx;
  private final ProducerConfig config;
  private final Dialect dialect;
  private final Handoff handoff;
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
  private Thread scheduler;

  private record Due(long lane, RequestSpec spec) {}

  public LoadRunner(
      Vertx vertx, ProducerConfig config, Dialect dialect, Handoff handoff, Lanes lanes) {
    this.vertx = vertx;
    this.config = config;
    this.dialect = dialect;
    this.handoff = handoff;
    this.lanes = lanes;
    this.tickets = new Tickets(config, dialect);
  }

  /** Starts the load; the future completes when every request sent has finished. */
  public CompletableFuture<Void> start() {
    tickets.start(System.nanoTime());
    if (config.warmup().duration() != null) {
      // a timed warm-up lasts its time, then on until the JIT has settled (at most a minute more)
      JitWatch jit = new JitWatch();
      vertx.setPeriodic(
          1000,
          id -> {
            if (tickets.endWarmupIfSettled(System.nanoTime(), jit.check())) {
              vertx.cancelTimer(id);
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
   */
  public record WarmupEnd(Duration after, boolean jitSettled) {}

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
    RequestSpec spec = tickets.next(System.nanoTime(), null);
    if (spec == null) {
      if (workers.decrementAndGet() == 0) {
        done.complete(null);
      }
      return;
    }
    issued.incrementAndGet();
    StreamingCall call = new StreamingCall(vertx, lane.client(), config, dialect, handoff, spec);
    inFlight.add(call);
    call.start()
        .onComplete(
            ar -> {
              inFlight.remove(call);
              // a fresh turn of the loop: no recursion even if a request fails synchronously
              lane.context().runOnContext(v -> nextClosed(lane, workers));
            });
  }

  private void schedule() {
    double meanGapNs = 1e9 / config.rate();
    SplittableRandom random = new SplittableRandom(config.seed());
    long intendedNs = System.nanoTime();
    for (long index = 0; ; index++) {
      RequestSpec spec = tickets.next(intendedNs, intendedNs);
      if (spec == null) {
        break;
      }
      parkUntil(intendedNs);
      if (stopping) {
        break;
      }
      issued.incrementAndGet();
      Due due = new Due(index, spec);
      synchronized (admission) {
        // on its way to a loop: the run is not done before it is admitted or counted as not sent
        dispatched++;
      }
      lanes.lane(index).context().runOnContext(v -> admit(due));
      double gap =
          config.arrival() == Arrival.POISSON
              ? -Math.log(1.0 - random.nextDouble()) * meanGapNs
              : meanGapNs;
      intendedNs += Math.round(gap);
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
      dispatched--;
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
    Lanes.Lane lane = lanes.lane(due.lane());
    StreamingCall call =
        new StreamingCall(vertx, lane.client(), config, dialect, handoff, due.spec());
    inFlight.add(call);
    call.start()
        .onComplete(
            ar -> {
              inFlight.remove(call);
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

  /**
   * Hands out the requests in order: warm-up ones while the warm-up lasts, then the run's own until
   * {@code total_requests} per model or {@code duration} (counted from the end of the warm-up).
   * Thread-safe.
   */
  static final class Tickets {
    private static final int BODIES_KEPT = 4096;

    /** How much longer than asked a timed warm-up may wait for the JIT to settle. */
    static final Duration MAX_EXTRA_WARMUP = Duration.ofSeconds(60);

    private final ProducerConfig config;
    private final Dialect dialect;
    private final java.util.Map<String, byte[]> bodies = new java.util.HashMap<>();
    private final Warmup warmup;
    private final long planned;

    /** Timed warm-up: the end once decided (MAX_VALUE until then), its earliest and latest end. */
    private long warmupEndNs = Long.MIN_VALUE;

    private long startNs;
    private long warmupMinEndNs;
    private long warmupCapNs;
    private WarmupEnd warmupEnd;
    private long warmups;
    private long measured;
    private long measuredStartNs;
    private long deadlineNs = Long.MAX_VALUE;
    private boolean stopped;

    Tickets(ProducerConfig config, Dialect dialect) {
      this.config = config;
      this.dialect = dialect;
      this.warmup = config.warmup();
      this.planned = config.plannedRequests();
    }

    synchronized void start(long nowNs) {
      startNs = nowNs;
      if (warmup.duration() != null) {
        warmupEndNs = Long.MAX_VALUE;
        warmupMinEndNs = nowNs + warmup.duration().toNanos();
        warmupCapNs = warmupMinEndNs + MAX_EXTRA_WARMUP.toNanos();
      }
    }

    /**
     * Ends a timed warm-up once its time has passed and the JIT has settled (or the cap is
     * reached); returns true when the warm-up is over.
     */
    synchronized boolean endWarmupIfSettled(long nowNs, boolean jitSettled) {
      if (warmupEndNs != Long.MAX_VALUE) {
        return true;
      }
      if (stopped || nowNs >= warmupCapNs || (nowNs >= warmupMinEndNs && jitSettled)) {
        warmupEndNs = nowNs;
        warmupEnd = new WarmupEnd(Duration.ofNanos(nowNs - startNs), jitSettled);
        return true;
      }
      return false;
    }

    synchronized WarmupEnd warmupEnd() {
      return warmupEnd;
    }

    synchronized void stop() {
      stopped = true;
    }

    synchronized long warmupIssued() {
      return warmups;
    }

    synchronized boolean warmingUp(long nowNs) {
      return measured == 0 && inWarmup(nowNs);
    }

    private boolean inWarmup(long atNs) {
      return warmup.requests() > 0 ? warmups < warmup.requests() : atNs < warmupEndNs;
    }

    /**
     * The next request to send at {@code atNs} (open loop: its intended time, also passed as {@code
     * intendedNs}), or null when the run has all it needs.
     */
    synchronized RequestSpec next(long atNs, Long intendedNs) {
      if (stopped) {
        return null;
      }
      List<String> models = config.models();
      if (measured == 0 && inWarmup(atNs)) {
        long k = warmups++;
        return spec("w" + k, k, models, intendedNs, true);
      }
      if (measured == 0) {
        measuredStartNs = atNs;
        Duration d = config.duration();
        if (d != null && !d.equals(Durations.FOREVER)) {
          deadlineNs = measuredStartNs + d.toNanos();
        }
      }
      if ((planned >= 0 && measured >= planned) || atNs >= deadlineNs) {
        return null;
      }
      long k = measured++;
      return spec(Long.toString(k), k, models, intendedNs, false);
    }

    private RequestSpec spec(
        String suffix, long k, List<String> models, Long intendedNs, boolean isWarmup) {
      String model = models.get((int) (k % models.size()));
      // every model sees the same prompt sequence: prompt by round, not by request
      long round = k / models.size();
      return new RequestSpec(
          config.runId() + "-" + suffix, model, body(model, round), intendedNs, isWarmup);
    }

    /**
     * The body for {@code model} and prompt {@code round}, encoded once (kept for a few thousand).
     */
    private byte[] body(String model, long round) {
      long prompt = round % config.prompts().size();
      String key = model + '\n' + prompt;
      byte[] body = bodies.get(key);
      if (body == null) {
        try {
          body =
              Json.MAPPER.writeValueAsBytes(
                  dialect.requestBody(model, config.prompts().messages(prompt), config));
        } catch (java.io.IOException e) {
          throw new IllegalStateException("cannot encode the request body", e);
        }
        if (bodies.size() < BODIES_KEPT) {
          bodies.put(key, body);
        }
      }
      return body;
    }
  }
}
