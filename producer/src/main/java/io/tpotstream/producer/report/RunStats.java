package io.tpotstream.producer.report;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.producer.http.CallOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/** Accumulates finished requests per model; thread-safe (event loops record, others read). */
public final class RunStats {
  private final Map<String, Acc> byModel = new LinkedHashMap<>();

  public RunStats(List<String> models) {
    for (String m : models) {
      byModel.put(m, new Acc(m));
    }
  }

  /** Records one finished request. */
  public void record(CallOutcome o) {
    Acc acc = byModel.get(o.model());
    synchronized (acc) {
      acc.record(o);
    }
  }

  /** A copy of every model's results, in config order. */
  public List<ModelResult> snapshot() {
    List<ModelResult> results = new ArrayList<>();
    for (Acc acc : byModel.values()) {
      synchronized (acc) {
        results.add(acc.result());
      }
    }
    return results;
  }

  /** Requests finished (completed or failed), all models. */
  public long finished() {
    long n = 0;
    for (Acc acc : byModel.values()) {
      synchronized (acc) {
        n += acc.completed + acc.failed;
      }
    }
    return n;
  }

  /** Failed requests by error class, all models. */
  public SortedMap<String, Long> errors() {
    SortedMap<String, Long> all = new TreeMap<>();
    for (Acc acc : byModel.values()) {
      synchronized (acc) {
        acc.errors.forEach((k, v) -> all.merge(k, v, Long::sum));
      }
    }
    return all;
  }

  /** Output tokens of finished requests, all models. */
  public long outputTokens() {
    long n = 0;
    for (Acc acc : byModel.values()) {
      synchronized (acc) {
        n += acc.outputTokens;
      }
    }
    return n;
  }

  private static final class Acc {
    final String model;
    final LatencyHistogram tpot = new LatencyHistogram();
    final LatencyHistogram ttft = new LatencyHistogram();
    final LatencyHistogram requestTpot = new LatencyHistogram();
    final LatencyHistogram e2e = new LatencyHistogram();
    final LatencyHistogram scheduleLag = new LatencyHistogram();
    final SortedMap<String, Long> errors = new TreeMap<>();
    long started;
    long completed;
    long failed;
    long tooShort;
    long outputTokens;

    Acc(String model) {
      this.model = model;
    }

    void record(CallOutcome o) {
      started++;
      long[] at = o.arrivalsNs();
      int[] k = o.tokensPerChunk();
      // gaps seen before a failure are real observations too
      for (int i = 1; i < o.chunks(); i++) {
        long gapNs = at[i] - at[i - 1];
        if (k[i] > 1) {
          tpot.recordMicros(Math.round(gapNs / 1000.0 / k[i]), k[i]);
        } else {
          tpot.recordNanos(gapNs);
        }
      }
      if (o.chunks() > 0) {
        ttft.recordNanos(at[0] - o.startNs());
      }
      if (o.scheduleLagNs() != null) {
        scheduleLag.recordNanos(o.scheduleLagNs());
      }
      outputTokens += o.outputTokens();
      if (o.completed()) {
        completed++;
        e2e.recordNanos(o.endNs() - o.startNs());
        long perTokenDivisor = o.outputTokens() - k[0];
        if (o.chunks() < 2 || perTokenDivisor <= 0) {
          tooShort++;
        } else {
          requestTpot.recordNanos((at[o.chunks() - 1] - at[0]) / perTokenDivisor);
        }
      } else {
        failed++;
        errors.merge(o.failure().errorClass().wire(), 1L, Long::sum);
      }
    }

    ModelResult result() {
      return new ModelResult(
          model,
          copy(tpot),
          copy(ttft),
          copy(requestTpot),
          copy(e2e),
          copy(scheduleLag),
          started,
          completed,
          failed,
          tooShort,
          new TreeMap<>(errors),
          outputTokens);
    }

    private static LatencyHistogram copy(LatencyHistogram h) {
      LatencyHistogram c = new LatencyHistogram();
      c.add(h);
      return c;
    }
  }
}
