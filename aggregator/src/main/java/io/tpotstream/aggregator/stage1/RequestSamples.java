package io.tpotstream.aggregator.stage1;

import io.tpotstream.aggregator.partial.Metric;
import io.tpotstream.common.event.DecodedEvent;
import io.tpotstream.common.request.RequestRules;
import io.tpotstream.common.slo.GoodputLimits;

/**
 * The per-request sample logic (docs/design.md, "Words"): TPOT gaps from {@code elapsedNs} (a chunk
 * of k tokens gives k samples of gap/k), TTFT, request TPOT, E2E, schedule lag, outcomes and
 * goodput, with the arithmetic of {@link RequestRules} (shared with the producer's table and the
 * per-request records), and the prefix cache a completed request reported. A warm-up request gives
 * none of them (nor a goodput verdict), only one {@code warmupRequests} count at its start.
 */
final class RequestSamples {
  private RequestSamples() {}

  /**
   * Applies a non-heartbeat event to the request's state, in place.
   *
   * @param state the state so far, or null for a request not seen yet
   * @param series the series of {@code state}, or of the event when {@code state} is null
   * @param goodput the per-request limits a finished request is judged against (none: no count)
   * @return the state to keep (new when {@code state} was null), or null when the request is over
   */
  static OpenRequest apply(
      OpenRequest state,
      RequestKey key,
      int series,
      DecodedEvent e,
      GoodputLimits goodput,
      Samples out) {
    boolean warmup = e.warmup() || (state != null && state.warmup);
    return switch (e.type()) {
      case START -> start(state, key, series, e, warmup, out);
      case TOKEN -> token(state, key, series, e, warmup, out);
      case END -> warmup ? null : end(state, series, e, goodput, out);
      case ERROR -> warmup ? null : error(series, e, out);
      case HEARTBEAT, ENGINE -> state; // neither is a request's (PartitionStage routes them)
    };
  }

  /** Records the abandonment of a request silent for {@code requestTimeoutMs} at its expiry. */
  static void abandon(OpenRequest state, long requestTimeoutMs, Samples out) {
    if (!state.warmup) {
      out.count(Counter.ABANDONED, state.series, state.lastTsMs + requestTimeoutMs, 1);
    }
  }

  private static OpenRequest start(
      OpenRequest state, RequestKey key, int series, DecodedEvent e, boolean warmup, Samples out) {
    if (state != null && state.started) {
      return state;
    }
    OpenRequest s = state == null ? new OpenRequest(key, series, e.ts()) : state;
    s.lastTsMs = Math.max(s.lastTsMs, e.ts());
    s.started = true;
    if (warmup) {
      s.warmup = true;
      out.count(Counter.WARMUP_REQUESTS, series, e.ts(), 1);
      return s;
    }
    out.count(Counter.STARTED, series, e.ts(), 1);
    if (e.hasScheduleLag()) {
      s.scheduleLagNs = e.scheduleLagNs();
      out.latency(Metric.SCHEDULE_LAG, series, e.ts(), micros(s.scheduleLagNs), 1);
    } else {
      s.scheduleLagNs = OpenRequest.NO_LAG;
    }
    return s;
  }

  private static OpenRequest token(
      OpenRequest state, RequestKey key, int series, DecodedEvent e, boolean warmup, Samples out) {
    OpenRequest s = state == null ? new OpenRequest(key, series, e.ts()) : state;
    if (warmup) {
      s.warmup = true;
      s.lastTsMs = Math.max(s.lastTsMs, e.ts());
      return s;
    }
    int seq = e.seq();
    if (s.chunks > 0 && seq <= s.lastSeq) {
      return s; // a duplicate chunk event
    }
    int k = Math.max(1, e.tokensOrOne());
    long elapsedNs = e.elapsedNs();
    if (s.chunks == 0) {
      s.firstElapsedNs = elapsedNs;
      s.firstChunkTokens = k;
      out.count(Counter.FIRST_CHUNK_TOKENS, s.series, e.ts(), k);
      if (RequestRules.givesTtft(seq)) {
        out.latency(Metric.TTFT, s.series, e.ts(), micros(elapsedNs), 1);
        if (s.hasLag()) {
          out.latency(
              Metric.TTFT_FROM_INTENDED, s.series, e.ts(), micros(elapsedNs + s.scheduleLagNs), 1);
        }
      }
    } else {
      long gapNs = elapsedNs - s.lastElapsedNs;
      boolean recorded =
          out.latency(Metric.TPOT, s.series, e.ts(), RequestRules.gapMicros(gapNs, k), k);
      if (recorded && e.coalesced()) {
        out.count(Counter.COALESCED_GAPS, s.series, e.ts(), k);
      }
      if (recorded && e.clientLagUs() > 0) {
        out.latency(
            Metric.TPOT_CLIENT_TOUCHED, s.series, e.ts(), RequestRules.gapMicros(gapNs, k), k);
        long lessLagNs = Math.max(0, gapNs - e.clientLagUs() * 1000);
        out.latency(
            Metric.TPOT_CLIENT_CORRECTED,
            s.series,
            e.ts(),
            RequestRules.gapMicros(lessLagNs, k),
            k);
      }
    }
    s.lastTsMs = Math.max(s.lastTsMs, e.ts());
    s.chunks++;
    s.tokens += k;
    s.lastSeq = seq;
    s.lastElapsedNs = elapsedNs;
    return s;
  }

  private static OpenRequest end(
      OpenRequest s, int series, DecodedEvent e, GoodputLimits goodput, Samples out) {
    int chunks = s == null ? 0 : s.chunks;
    boolean tooShort = RequestRules.tooShort(chunks);
    out.count(tooShort ? Counter.TOO_SHORT : Counter.COMPLETED_FULL, series, e.ts(), 1);
    long e2e = micros(e.elapsedNs());
    out.latency(Metric.E2E, series, e.ts(), e2e, 1);
    long requestTpot = -1;
    if (!tooShort) {
      long outputTokens = e.hasCompletionTokens() ? e.completionTokens() : s.tokens;
      requestTpot =
          RequestRules.requestTpotMicros(
              s.firstElapsedNs, s.lastElapsedNs, outputTokens, s.firstChunkTokens);
      if (requestTpot >= 0) {
        out.latency(Metric.REQUEST_TPOT, series, e.ts(), requestTpot, 1);
      }
    }
    if (e.hasPromptTokens() && e.hasCachedTokens()) {
      // a request's cached tokens count at most its prompt tokens (the schema's reading)
      out.count(Counter.CACHE_REQUESTS, series, e.ts(), 1);
      out.count(Counter.CACHE_PROMPT_TOKENS, series, e.ts(), e.promptTokens());
      out.count(
          Counter.CACHED_TOKENS, series, e.ts(), Math.min(e.cachedTokens(), e.promptTokens()));
    }
    if (!goodput.isEmpty()) {
      long ttft = chunks > 0 ? micros(s.firstElapsedNs) : -1;
      if (goodput.meets(true, ttft, requestTpot, e2e)) {
        out.count(Counter.GOOD, series, e.ts(), 1);
      }
    }
    return null;
  }

  private static OpenRequest error(int series, DecodedEvent e, Samples out) {
    out.failed(series, e.ts(), e.errorClass());
    out.latency(Metric.E2E, series, e.ts(), micros(e.elapsedNs()), 1);
    return null;
  }

  /** ns to µs, rounded half up (the common rule). */
  static long micros(long nanos) {
    return RequestRules.micros(nanos);
  }
}
