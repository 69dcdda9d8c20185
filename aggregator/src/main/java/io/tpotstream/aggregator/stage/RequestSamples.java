package io.tpotstream.aggregator.stage;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.request.RequestRules;
import io.tpotstream.common.slo.GoodputLimits;

/**
 * The per-request sample logic (DESIGN.md, "Words"): TPOT gaps from {@code elapsedNs} (a chunk of k
 * tokens gives k samples of gap/k), TTFT, request TPOT, E2E, schedule lag, outcomes and goodput,
 * with the arithmetic of {@link RequestRules} (shared with the producer's table and the per-request
 * records). Pure: it turns the previous state and one event into the next state and the samples.
 */
final class RequestSamples {
  private RequestSamples() {}

  /**
   * Applies a non-heartbeat event to the request's state.
   *
   * @param state the state so far, or null for a request not seen yet
   * @return the next state, or null when the request is over (end or error)
   */
  static RequestState apply(
      RequestState state, TokenEvent e, int series, GoodputLimits goodput, Samples out) {
    return switch (e.type()) {
      case START -> start(state, e, series, out);
      case TOKEN -> token(state, e, series, out);
      case END -> end(state, e, series, goodput, out);
      case ERROR -> error(e, series, out);
      case HEARTBEAT -> state;
    };
  }

  /** Records the abandonment of a request silent for {@code requestTimeoutMs} at its expiry. */
  static void abandon(RequestState state, long requestTimeoutMs, Samples out) {
    out.count(Counter.ABANDONED, state.series(), state.lastTsMs() + requestTimeoutMs, 1);
  }

  private static RequestState start(RequestState state, TokenEvent e, int series, Samples out) {
    if (state != null && state.started()) {
      return state;
    }
    out.count(Counter.STARTED, series, e.ts(), 1);
    long lag = RequestState.NO_LAG;
    if (e.scheduleLagNs() != null) {
      lag = e.scheduleLagNs();
      out.latency(Metric.SCHEDULE_LAG, series, e.ts(), micros(lag), 1);
    }
    RequestState base = state == null ? RequestState.fresh(series, e.ts()) : state;
    return new RequestState(
        base.series(),
        Math.max(base.lastTsMs(), e.ts()),
        true,
        lag,
        base.chunks(),
        base.tokens(),
        base.lastSeq(),
        base.firstElapsedNs(),
        base.lastElapsedNs(),
        base.firstChunkTokens());
  }

  private static RequestState token(RequestState state, TokenEvent e, int series, Samples out) {
    RequestState s = state == null ? RequestState.fresh(series, e.ts()) : state;
    int seq = e.seq();
    if (s.chunks() > 0 && seq <= s.lastSeq()) {
      return s; // a duplicate chunk event
    }
    int k = Math.max(1, e.tokensOrOne());
    long elapsedNs = e.elapsedNs();
    long firstElapsedNs = s.firstElapsedNs();
    int firstChunkTokens = s.firstChunkTokens();
    if (s.chunks() == 0) {
      firstElapsedNs = elapsedNs;
      firstChunkTokens = k;
      out.count(Counter.FIRST_CHUNK_TOKENS, s.series(), e.ts(), k);
      if (RequestRules.givesTtft(seq)) {
        out.latency(Metric.TTFT, s.series(), e.ts(), micros(elapsedNs), 1);
        if (s.hasLag()) {
          out.latency(
              Metric.TTFT_FROM_INTENDED,
              s.series(),
              e.ts(),
              micros(elapsedNs + s.scheduleLagNs()),
              1);
        }
      }
    } else {
      long gapNs = elapsedNs - s.lastElapsedNs();
      out.latency(Metric.TPOT, s.series(), e.ts(), RequestRules.gapMicros(gapNs, k), k);
    }
    return new RequestState(
        s.series(),
        Math.max(s.lastTsMs(), e.ts()),
        s.started(),
        s.scheduleLagNs(),
        s.chunks() + 1,
        s.tokens() + k,
        seq,
        firstElapsedNs,
        elapsedNs,
        firstChunkTokens);
  }

  private static RequestState end(
      RequestState state, TokenEvent e, int series, GoodputLimits goodput, Samples out) {
    RequestState s = state == null ? RequestState.fresh(series, e.ts()) : state;
    boolean tooShort = RequestRules.tooShort(s.chunks());
    out.count(tooShort ? Counter.TOO_SHORT : Counter.COMPLETED_FULL, s.series(), e.ts(), 1);
    long e2e = RequestRules.micros(e.elapsedNs());
    out.latency(Metric.E2E, s.series(), e.ts(), e2e, 1);
    long requestTpot = -1;
    if (!tooShort) {
      long outputTokens = RequestRules.outputTokens(e.completionTokens(), s.tokens());
      requestTpot =
          RequestRules.requestTpotMicros(
              s.firstElapsedNs(), s.lastElapsedNs(), outputTokens, s.firstChunkTokens());
      if (requestTpot >= 0) {
        out.latency(Metric.REQUEST_TPOT, s.series(), e.ts(), requestTpot, 1);
      }
    }
    if (!goodput.isEmpty()) {
      long ttft = s.chunks() > 0 ? RequestRules.micros(s.firstElapsedNs()) : -1;
      if (goodput.meets(true, ttft, requestTpot, e2e)) {
        out.count(Counter.GOOD, s.series(), e.ts(), 1);
      }
    }
    return null;
  }

  private static RequestState error(TokenEvent e, int series, Samples out) {
    out.failed(series, e.ts(), e.errorClass());
    out.latency(Metric.E2E, series, e.ts(), micros(e.elapsedNs()), 1);
    return null;
  }

  /** ns to µs, rounded half up (the common rule). */
  static long micros(long nanos) {
    return RequestRules.micros(nanos);
  }
}
