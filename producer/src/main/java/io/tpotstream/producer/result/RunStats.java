package io.tpotstream.producer.result;

import io.tpotstream.common.request.RequestRules;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.producer.http.CallOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Accumulates finished requests per model (and sweep stage) with the per-request rules the
 * aggregator uses ({@link RequestRules}), into the statistics core's {@link WindowStats}, so that
 * the producer's table and the summaries agree on the same events. Thread-safe (event loops record,
 * others read).
 */
public final class RunStats {
  private final List<String> models;
  private final GoodputLimits goodput;
  private final Map<String, Acc> accs = new LinkedHashMap<>();

  public RunStats(List<String> models) {
    this(models, GoodputLimits.NONE);
  }

  /** With {@code goodput} limits, each request is also judged good or not. */
  public RunStats(List<String> models, GoodputLimits goodput) {
    this.models = List.copyOf(models);
    this.goodput = goodput;
    stage(null);
  }

  /** Records one finished request (no sweep stage). */
  public void record(CallOutcome o) {
    acc(o.model(), null).record(o, goodput);
  }

  /** A recorder for the requests of sweep stage {@code stage}; its models come first in order. */
  public Consumer<CallOutcome> stage(String stage) {
    synchronized (accs) {
      for (String m : models) {
        accs.computeIfAbsent(key(m, stage), k -> new Acc(m, stage));
      }
    }
    return o -> acc(o.model(), stage).record(o, goodput);
  }

  /**
   * A copy of every model's results, in config order, per stage in the order stages started; the
   * entries of the run without stages are left out once a stage recorded anything.
   */
  public List<ModelResult> snapshot() {
    List<ModelResult> results = new ArrayList<>();
    List<Acc> all;
    synchronized (accs) {
      all = new ArrayList<>(accs.values());
    }
    boolean staged = all.stream().anyMatch(a -> a.stage != null);
    for (Acc acc : all) {
      if (staged && acc.stage == null) {
        continue;
      }
      synchronized (acc) {
        results.add(acc.result());
      }
    }
    return results;
  }

  /** Requests finished (completed or failed), all models. */
  public long finished() {
    long n = 0;
    for (Acc acc : accs()) {
      synchronized (acc) {
        n += acc.stats.completed() + acc.stats.failed();
      }
    }
    return n;
  }

  /** Failed requests by error class, all models. */
  public SortedMap<String, Long> errors() {
    SortedMap<String, Long> all = new TreeMap<>();
    for (Acc acc : accs()) {
      synchronized (acc) {
        acc.stats.errors().forEach((k, v) -> all.merge(k, v, Long::sum));
      }
    }
    return all;
  }

  /** Output tokens of finished requests, all models. */
  public long outputTokens() {
    long n = 0;
    for (Acc acc : accs()) {
      synchronized (acc) {
        n += acc.stats.outputTokens();
      }
    }
    return n;
  }

  private List<Acc> accs() {
    synchronized (accs) {
      return new ArrayList<>(accs.values());
    }
  }

  private Acc acc(String model, String stage) {
    synchronized (accs) {
      return accs.computeIfAbsent(key(model, stage), k -> new Acc(model, stage));
    }
  }

  private static String key(String model, String stage) {
    return stage == null ? model : model + "\u0000" + stage;
  }

  private static final class Acc {
    final String model;
    final String stage;
    final WindowStats stats = new WindowStats();
    long asked;
    long endedShort;
    String lastFailure;

    Acc(String model, String stage) {
      this.model = model;
      this.stage = stage;
    }

    synchronized void record(CallOutcome o, GoodputLimits goodput) {
      stats.started(1);
      if (o.askedTokens() != null) {
        asked++;
        endedShort += o.endedShort() ? 1 : 0;
      }
      long[] at = o.arrivalsNs();
      int[] k = o.tokensPerChunk();
      // gaps seen before a failure are real observations too
      for (int i = 1; i < o.chunks(); i++) {
        stats.tpot.recordMicros(RequestRules.gapMicros(at[i] - at[i - 1], k[i]), k[i]);
      }
      long ttftMicros = -1;
      if (o.chunks() > 0) {
        ttftMicros = RequestRules.micros(at[0] - o.startNs());
        stats.ttft.recordMicros(ttftMicros);
      }
      if (o.scheduleLagNs() != null) {
        stats.scheduleLag.recordMicros(RequestRules.micros(o.scheduleLagNs()));
      }
      long e2eMicros = RequestRules.micros(o.endNs() - o.startNs());
      stats.e2e.recordMicros(e2eMicros);
      if (o.completed()) {
        long outputTokens = o.outputTokens();
        stats.outputTokens(outputTokens);
        boolean tooShort = RequestRules.tooShort(o.chunks());
        stats.completed(1, tooShort);
        long requestTpot =
            tooShort
                ? -1
                : RequestRules.requestTpotMicros(
                    at[0] - o.startNs(), at[o.chunks() - 1] - o.startNs(), outputTokens, k[0]);
        if (requestTpot >= 0) {
          stats.requestTpot.recordMicros(requestTpot);
        }
        if (!goodput.isEmpty() && goodput.meets(true, ttftMicros, requestTpot, e2eMicros)) {
          stats.good(1);
        }
      } else {
        stats.outputTokens(o.outputTokens());
        stats.failed(o.failure().errorClass().wire(), 1);
        lastFailure = o.failure().message();
      }
    }

    ModelResult result() {
      WindowStats copy = new WindowStats().add(stats);
      return new ModelResult(
          model,
          copy.tpot,
          copy.ttft,
          copy.requestTpot,
          copy.e2e,
          copy.scheduleLag,
          copy.started(),
          copy.completed(),
          copy.failed(),
          copy.tooShort(),
          new TreeMap<>(copy.errors()),
          copy.outputTokens(),
          stage,
          copy,
          asked,
          endedShort,
          lastFailure);
    }
  }
}
