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
 * are also checked against its heartbeats: was the client's own lag over 1 ms then (flagged), or
 * was the distortion silent?
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
  long distortedFlagged;

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
      d.add(r.elapsedBySeq, r.tsBySeq, events, sent.get().chunks());
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
      d.add(e.getValue(), null, null, sent.get().chunks());
    }
    return d;
  }

  private void add(long[] bySeq, long[] tsBySeq, EventsTopic events, List<ChunkTruth> chunks) {
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
          if (events != null && Math.abs(diffNs) > SUSPECT_THRESHOLD_US * 1000) {
            distorted++;
            if (events.clientSuspectAt(tsBySeq[chunk.seq()], SUSPECT_THRESHOLD_US)) {
              distortedFlagged++;
            }
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
