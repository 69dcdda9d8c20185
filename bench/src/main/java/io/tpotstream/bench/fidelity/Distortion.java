package io.tpotstream.bench.fidelity;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.GroundTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Measured gap minus sent gap, token by token: a client's gap between chunks seq-1 and seq against
 * the simulator's gap between sending them (its ground truth for the same X-Request-Id).
 * Percentiles are of the absolute difference. For the producer, gaps distorted by more than 1 ms
 * are also checked against its own attribution: did the chunk carry the client's lag (touched), or
 * was the distortion silent? And of the gaps it touched, how many were distorted that much?
 */
final class Distortion {
  static final long SUSPECT_THRESHOLD_US = 1000;

  final LatencyHistogram absolute = new LatencyHistogram();
  long pairs;
  long positive;
  long maxPositiveNs;
  long maxNegativeNs;
  long sumNs;
  long requestsMatched;
  long requestsWithoutTruth;
  long distorted;
  long distortedTouched;
  long touched;
  long touchedDistorted;

  /** The producer's gaps, from its published events. */
  static Distortion of(EventsTopic events, GroundTruth truth) {
    Distortion d = new Distortion();
    for (Map.Entry<String, EventsTopic.Request> e : events.requests.entrySet()) {
      Optional<RequestTruth> sent = truth.request(e.getKey());
      if (sent.isEmpty()) {
        d.requestsWithoutTruth++;
        continue;
      }
      d.requestsMatched++;
      EventsTopic.Request r = e.getValue();
      d.add(r.elapsedBySeq, r, sent.get().chunks());
    }
    return d;
  }

  /** Another client's gaps: per request id, the arrival (any monotonic ns clock) of each chunk. */
  static Distortion ofArrivals(Map<String, long[]> arrivals, GroundTruth truth) {
    Distortion d = new Distortion();
    for (Map.Entry<String, long[]> e : arrivals.entrySet()) {
      Optional<RequestTruth> sent = truth.request(e.getKey());
      if (sent.isEmpty()) {
        d.requestsWithoutTruth++;
        continue;
      }
      d.requestsMatched++;
      d.add(e.getValue(), null, sent.get().chunks());
    }
    return d;
  }

  private void add(long[] bySeq, EventsTopic.Request events, List<ChunkTruth> chunks) {
    ChunkTruth previous = null;
    for (ChunkTruth chunk : chunks) {
      if (previous != null && previous.seq() == chunk.seq() - 1) {
        long before = at(bySeq, previous.seq());
        long after = at(bySeq, chunk.seq());
        if (before >= 0 && after >= 0) {
          long diffNs = (after - before) - (chunk.sentNs() - previous.sentNs());
          pairs++;
          sumNs += diffNs;
          if (diffNs > 0) {
            positive++;
            maxPositiveNs = Math.max(maxPositiveNs, diffNs);
          } else {
            maxNegativeNs = Math.min(maxNegativeNs, diffNs);
          }
          absolute.recordNanos(Math.abs(diffNs));
          if (events != null) {
            boolean far = Math.abs(diffNs) > SUSPECT_THRESHOLD_US * 1000;
            boolean lagged = events.lagUs(chunk.seq()) > 0;
            distorted += far ? 1 : 0;
            distortedTouched += far && lagged ? 1 : 0;
            touched += lagged ? 1 : 0;
            touchedDistorted += far && lagged ? 1 : 0;
          }
        }
      }
      previous = chunk;
    }
  }

  private static long at(long[] bySeq, int seq) {
    return seq < bySeq.length ? bySeq[seq] : -1;
  }
}
