package io.tpotstream.aggregator.stage;

import io.tpotstream.common.event.TokenEvent;

/**
 * The per-request sample logic (DESIGN.md, "Words"): TPOT gaps from {@code elapsedNs} (a chunk of k
 * tokens gives k samples of gap/k), TTFT, request TPOT, E2E, schedule lag and outcomes. Pure: it
 * turns the previous state and one event into the next state and the samples.
 */
final class RequestSamples {
  private RequestSamples() {}

  /**
   * Applies a non-heartbeat event to the request's state.
   *
   * @param state the state so far, or null for a request not seen yet
   * @return the next state, or null when the request is over (end or error)
   */
  static RequestState apply(RequestState state, TokenEvent e, int series, Samples out) {
    return switch (e.type()) {
      case START -> start(state, e, series, out);
      case TOKEN -> token(state, e, series, out);
      case END -> end(state, e, series, out);
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
      if (seq == 0) {
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
      out.latency(Metric.TPOT, s.series(), e.ts(), divideRounded(gapNs, 1000L * k), k);
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

  private static RequestState end(RequestState state, TokenEvent e, int series, Samples out) {
    RequestState s = state == null ? RequestState.fresh(series, e.ts()) : state;
    boolean tooShort = s.chunks() < 2;
    out.count(tooShort ? Counter.TOO_SHORT : Counter.COMPLETED_FULL, s.series(), e.ts(), 1);
    out.latency(Metric.E2E, s.series(), e.ts(), micros(e.elapsedNs()), 1);
    if (!tooShort) {
      long outputTokens = e.completionTokens() != null ? e.completionTokens() : s.tokens();
      long divisor = outputTokens - s.firstChunkTokens();
      if (divisor > 0) {
        long spanNs = s.lastElapsedNs() - s.firstElapsedNs();
        out.latency(
            Metric.REQUEST_TPOT, s.series(), e.ts(), divideRounded(spanNs, 1000L * divisor), 1);
      }
    }
    return null;
  }

  private static RequestState error(TokenEvent e, int series, Samples out) {
    out.failed(series, e.ts(), e.errorClass());
    out.latency(Metric.E2E, series, e.ts(), micros(e.elapsedNs()), 1);
    return null;
  }

  /** ns to µs, rounded half up (as {@link io.tpotstream.common.stats.LatencyHistogram}). */
  static long micros(long nanos) {
    return divideRounded(nanos, 1000);
  }

  static long divideRounded(long numerator, long divisor) {
    return Math.floorDiv(numerator + divisor / 2, divisor);
  }
}
