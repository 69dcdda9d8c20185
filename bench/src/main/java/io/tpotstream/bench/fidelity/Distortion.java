package io.tpotstream.bench.fidelity;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.GroundTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Measured gap minus sent gap, token by token: the producer's gap between chunks seq-1 and seq
 * (from the published elapsedNs) against the simulator's gap between sending them (its ground truth
 * for the same X-Request-Id). Percentiles are of the absolute difference.
 */
final class Distortion {
  final LatencyHistogram absolute = new LatencyHistogram();
  long pairs;
  long positive;
  long maxPositiveNs;
  long maxNegativeNs;
  long sumNs;
  long requestsMatched;
  long requestsWithoutTruth;

  static Distortion of(EventsTopic events, GroundTruth truth) {
    Distortion d = new Distortion();
    for (Map.Entry<String, EventsTopic.Request> e : events.requests.entrySet()) {
      Optional<RequestTruth> sent = truth.request(e.getKey());
      if (sent.isEmpty()) {
        d.requestsWithoutTruth++;
        continue;
      }
      d.requestsMatched++;
      d.add(e.getValue(), sent.get().chunks());
    }
    return d;
  }

  private void add(EventsTopic.Request measured, List<ChunkTruth> chunks) {
    ChunkTruth previous = null;
    for (ChunkTruth chunk : chunks) {
      if (previous != null && previous.seq() == chunk.seq() - 1) {
        long before = measured.elapsedNs(previous.seq());
        long after = measured.elapsedNs(chunk.seq());
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
        }
      }
      previous = chunk;
    }
  }
}
