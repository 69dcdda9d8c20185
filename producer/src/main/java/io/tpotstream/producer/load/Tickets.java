package io.tpotstream.producer.load;

import io.tpotstream.common.Json;
import io.tpotstream.producer.config.ConfigDurations;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.config.Warmup;
import io.tpotstream.producer.config.WarmupBudget;
import io.tpotstream.producer.dialect.Dialect;
import io.tpotstream.producer.http.RequestSpec;
import io.tpotstream.producer.traffic.Sweep;
import io.tpotstream.producer.traffic.TraceReplay;
import io.tpotstream.producer.traffic.TraceSchedule;
import io.tpotstream.producer.workload.InputLength;
import io.tpotstream.producer.workload.Sessions;
import io.tpotstream.producer.workload.TraceSessions;
import io.tpotstream.producer.workload.Turn;
import java.time.Duration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * Hands out the requests in order: warm-up ones while the warm-up lasts, then the run's own until
 * {@code total_requests} per model or {@code duration} (counted from the end of the warm-up), or
 * for a trace its requests as they come due ({@link TraceSessions}) until its end. A stopped model
 * gets no more requests, and what it was still to get leaves the plan. Thread-safe.
 */
final class Tickets {
  /**
   * A request to send, what to tell when it is over ({@code whenDone}: its conversation's next turn
   * is ready), and what it waits for first ({@code after}: the turn before it in a trace's session;
   * null: nothing).
   */
  record Ticket(RequestSpec spec, Runnable whenDone, CompletableFuture<Void> after) {
    void done() {
      whenDone.run();
    }

    /** True for {@link #SKIPPED}. */
    boolean skipped() {
      return this == SKIPPED;
    }
  }

  /** A trace's request not sent because its model was stopped: the next one is due. */
  static final Ticket SKIPPED = new Ticket(null, () -> {}, null);

  /** The most label sets of a trace's lines kept for reuse. */
  private static final int LABEL_SETS_KEPT = 1024;

  /** The labels tpot sets itself: a trace's own of these names are left out. */
  private static final Set<String> TPOT_LABELS =
      Set.of("concurrency", Sweep.LABEL, InputLength.LABEL, "run");

  /** Mixed into a trace's warm-up requests' own text, so that it is not the run's. */
  private static final long WARMUP_SALT = 0x5A17_0000_0000_0000L;

  private static final int BODIES_KEPT = 4096;

  /** How much longer than asked a timed warm-up may wait for the JIT to settle. */
  static final Duration MAX_EXTRA_WARMUP = Duration.ofSeconds(60);

  private final ProducerConfig config;
  private final Dialect dialect;
  private final Sessions sessions;
  private final Sessions warmupSessions;

  /** Bodies per model, by turn (the same turn object: the same prompt and max_tokens). */
  private final Map<String, IdentityHashMap<Turn, byte[]>> bodies = new HashMap<>();

  private int bodiesKept;

  /** The request labels per input_len class (null: no class) and a trace line's own labels. */
  private final Map<List<Object>, SortedMap<String, String>> labels = new HashMap<>();

  /** A trace's sessions as the run replays it, and as its warm-up does (null: no trace). */
  private final TraceSessions traceSessions;

  private final TraceSessions warmupTraceSessions;
  private int tracePass;
  private int warmupTracePass;

  private final Warmup warmup;

  /** A local warm-up's budget (null for any other): it ends at the first of its limits. */
  private final WarmupBudget budget;

  private final long planned;
  private final long plannedPerModel;
  private final Predicate<String> stoppedModel;

  /** The run's own requests handed out per model. */
  private final Map<String, Long> measuredByModel = new HashMap<>();

  /** Timed warm-up: the end once decided (MAX_VALUE until then), its earliest and latest end. */
  private long warmupEndNs = Long.MIN_VALUE;

  private long startNs;
  private long warmupMinEndNs;
  private long warmupCapNs;
  private LoadRunner.WarmupEnd warmupEnd;
  private long warmups;
  private long measured;
  private long measuredStartNs;
  private long deadlineNs = Long.MAX_VALUE;
  private boolean stopped;

  /** {@code stoppedModel} says which models get no more requests (a failure no retry can fix). */
  Tickets(
      ProducerConfig config, Dialect dialect, Sessions sessions, Predicate<String> stoppedModel) {
    this.config = config;
    this.dialect = dialect;
    this.sessions = sessions;
    this.warmupSessions = new Sessions(sessions.source(), config.models());
    this.warmup = config.warmup();
    this.budget = warmup.local() ? WarmupBudget.of(config) : null;
    TraceSchedule trace = config.trace();
    this.traceSessions = trace == null ? null : new TraceSessions(trace.file().blockSize());
    this.warmupTraceSessions = trace == null ? null : new TraceSessions(trace.file().blockSize());
    // a trace's end ends the run; its requests are not dealt out per model
    this.planned = trace == null ? config.plannedRequests() : -1;
    this.plannedPerModel = planned < 0 ? -1 : planned / config.models().size();
    this.stoppedModel = stoppedModel;
  }

  synchronized void start(long nowNs) {
    startNs = nowNs;
    if (budget != null) {
      // a local warm-up: until the JIT settles, at most its budget
      warmupEndNs = Long.MAX_VALUE;
      warmupMinEndNs = nowNs;
      warmupCapNs = nowNs + budget.time().toNanos();
    } else if (warmup.duration() != null) {
      warmupEndNs = Long.MAX_VALUE;
      warmupMinEndNs = nowNs + warmup.duration().toNanos();
      warmupCapNs = warmupMinEndNs + MAX_EXTRA_WARMUP.toNanos();
    }
  }

  /**
   * Ends a timed warm-up once its time has passed and the JIT has settled, or at its cap (a local
   * one's budget: its time, or {@code chunks}, the token chunks its requests streamed so far);
   * returns true when the warm-up is over.
   */
  synchronized boolean endWarmupIfSettled(long nowNs, boolean jitSettled, long chunks) {
    if (warmupEndNs != Long.MAX_VALUE) {
      return true;
    }
    boolean spent = nowNs >= warmupCapNs || (budget != null && chunks >= budget.chunks());
    if (stopped || spent || (nowNs >= warmupMinEndNs && jitSettled)) {
      warmupEndNs = nowNs;
      warmupEnd =
          new LoadRunner.WarmupEnd(Duration.ofNanos(nowNs - startNs), jitSettled, chunks, budget);
      return true;
    }
    return false;
  }

  /** The local warm-up's budget; null for any other warm-up. */
  WarmupBudget warmupBudget() {
    return budget;
  }

  synchronized LoadRunner.WarmupEnd warmupEnd() {
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

  /** True when a request due at {@code atNs} would be one of the run's own, not a warm-up one. */
  synchronized boolean warmupOver(long atNs) {
    return measured > 0 || !inWarmup(atNs);
  }

  private boolean inWarmup(long atNs) {
    return warmup.requests() > 0 ? warmups < warmup.requests() : atNs < warmupEndNs;
  }

  /**
   * The next request to send at {@code atNs} (open loop: its intended time, also passed as {@code
   * intendedNs}), or null when the run has all it needs.
   */
  synchronized Ticket next(long atNs, Long intendedNs) {
    return next(atNs, intendedNs, null);
  }

  /**
   * As {@link #next(long, Long)}, for a trace's request {@code due} (null without a trace): null
   * when the run has all it needs or every model is stopped, {@link #SKIPPED} when the request's
   * model is.
   */
  synchronized Ticket next(long atNs, Long intendedNs, TraceReplay.Entry due) {
    if (stopped) {
      return null;
    }
    if (measured == 0 && inWarmup(atNs)) {
      if (due != null) {
        return traceTicket(due, intendedNs, true);
      }
      Sessions.Request turn = warmupSessions.next(stoppedModel);
      if (turn == null) {
        return null;
      }
      long k = warmups++;
      return ticket("w" + k, turn, warmupSessions, intendedNs, true);
    }
    if (measured == 0) {
      measuredStartNs = atNs;
      Duration d = config.duration();
      if (d != null && !d.equals(ConfigDurations.FOREVER)) {
        deadlineNs = measuredStartNs + d.toNanos();
      }
    }
    if ((planned >= 0 && measured >= plannedNow()) || atNs >= deadlineNs) {
      return null;
    }
    if (due != null) {
      return traceTicket(due, intendedNs, false);
    }
    Sessions.Request turn = sessions.next(stoppedModel);
    if (turn == null) {
      return null;
    }
    long k = measured++;
    measuredByModel.merge(turn.model(), 1L, Long::sum);
    return ticket(Long.toString(k), turn, sessions, intendedNs, false);
  }

  /**
   * True when {@link #next} would hand out nothing more at {@code atNs}: the run was stopped, every
   * model is, or the run's own requests reached their number or their time.
   */
  synchronized boolean over(long atNs) {
    return stopped
        || config.models().stream().allMatch(stoppedModel)
        || (measured > 0 && (atNs >= deadlineNs || (planned >= 0 && measured >= plannedNow())));
  }

  /** The plan less what the stopped models were still to get. */
  private long plannedNow() {
    long now = planned;
    for (String model : config.models()) {
      if (stoppedModel.test(model)) {
        now -= Math.max(0, plannedPerModel - measuredByModel.getOrDefault(model, 0L));
      }
    }
    return now;
  }

  private Ticket ticket(
      String suffix, Sessions.Request turn, Sessions from, Long intendedNs, boolean isWarmup) {
    // every model sees the same sequence of conversations, each conversation's turns in order
    RequestSpec spec =
        new RequestSpec(
            config.runId() + "-" + suffix,
            turn.model(),
            body(turn.model(), turn.input(), true),
            intendedNs,
            isWarmup,
            labels(turn.inputLength(), Map.of()),
            null);
    return new Ticket(spec, () -> from.finished(turn), null);
  }

  /**
   * The ticket of a trace's request: its model, its prompt of the trace's length, its output length
   * as {@code max_tokens}, its labels; after the turn before it in its session. A trace that starts
   * again starts its sessions again.
   */
  private Ticket traceTicket(TraceReplay.Entry due, Long intendedNs, boolean isWarmup) {
    TraceSessions turns = isWarmup ? warmupTraceSessions : traceSessions;
    int pass = isWarmup ? warmupTracePass : tracePass;
    if (due.pass() != pass) {
      turns.clear();
      if (isWarmup) {
        warmupTracePass = due.pass();
      } else {
        tracePass = due.pass();
      }
    }
    // the text past a request's hash ids is its own: a warm-up's differs from the run's
    long unique = config.seed() ^ (due.n() * 0x9E3779B97F4A7C15L) ^ (isWarmup ? WARMUP_SALT : 0);
    TraceSessions.Next next =
        turns.next(due.n(), due.request(), config.models(), stoppedModel, unique);
    if (next == null) {
      return config.models().stream().allMatch(stoppedModel) ? null : SKIPPED;
    }
    String suffix;
    if (isWarmup) {
      suffix = "w" + warmups++;
    } else {
      suffix = Long.toString(measured++);
      measuredByModel.merge(next.model(), 1L, Long::sum);
    }
    Turn turn = next.turn();
    RequestSpec spec =
        new RequestSpec(
            config.runId() + "-" + suffix,
            next.model(),
            body(next.model(), turn, false),
            intendedNs,
            isWarmup,
            labels(InputLength.classOf(turn.inputTokens()), due.request().labels()),
            turn.maxTokens());
    return new Ticket(spec, () -> next.done().complete(null), next.after());
  }

  /**
   * The run's labels, with the {@code input_len} class when the prompts give one, and a trace
   * line's labels ({@code traced}) but for the names tpot sets itself and the config's.
   */
  private SortedMap<String, String> labels(String inputLength, Map<String, String> traced) {
    if (inputLength == null && traced.isEmpty()) {
      return config.labels();
    }
    List<Object> key = List.of(String.valueOf(inputLength), traced);
    SortedMap<String, String> kept = labels.get(key);
    if (kept != null) {
      return kept;
    }
    SortedMap<String, String> l = new TreeMap<>(config.labels());
    traced.forEach(
        (name, value) -> {
          if (!TPOT_LABELS.contains(name)) {
            l.putIfAbsent(name, value);
          }
        });
    if (inputLength != null) {
      l.put(InputLength.LABEL, inputLength);
    }
    if (labels.size() < LABEL_SETS_KEPT) {
      labels.put(key, l);
    }
    return l;
  }

  /**
   * The body for {@code model} and {@code turn} (its messages, its {@code max_tokens} else the
   * config's), encoded once per turn and kept for a few thousand when {@code keep} (a trace's turns
   * are each sent once).
   */
  private byte[] body(String model, Turn turn, boolean keep) {
    IdentityHashMap<Turn, byte[]> ofModel =
        bodies.computeIfAbsent(model, m -> new IdentityHashMap<>());
    byte[] body = keep ? ofModel.get(turn) : null;
    if (body == null) {
      Integer maxTokens = turn.maxTokens() != null ? turn.maxTokens() : config.maxTokens();
      try {
        body =
            Json.MAPPER.writeValueAsBytes(
                dialect.requestBody(model, turn.messages(), maxTokens, config));
      } catch (java.io.IOException e) {
        throw new IllegalStateException("cannot encode the request body", e);
      }
      if (keep && bodiesKept < BODIES_KEPT) {
        ofModel.put(turn, body);
        bodiesKept++;
      }
    }
    return body;
  }
}
