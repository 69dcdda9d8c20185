package io.tpotstream.common.summary;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.tpotstream.common.stats.LatencySummary;
import java.math.BigDecimal;
import java.util.List;

/**
 * What the producers' own lag did to a window's TPOT (docs/design.md, "The client's own lag"):
 * {@code gaps} the TPOT samples whose gap a producer's event loop ran more than 1 ms late in;
 * {@code tailShare} the share of the samples at or above the window's TPOT p99 that are such gaps;
 * {@code tpotWithout} the TPOT percentiles with the lag taken out of each touched gap (the most the
 * server can have been faster) and {@code moved} the reported percentiles the lag raises by more
 * than the client-lag threshold. Left out of a summary when no gap was touched; the window is
 * {@code clientSuspect} exactly when {@code moved} is not empty.
 */
@JsonPropertyOrder({"gaps", "tailShare", "tpotWithout", "moved"})
public record ClientTouch(
    long gaps, BigDecimal tailShare, LatencySummary tpotWithout, List<String> moved) {

  public ClientTouch {
    moved = moved == null ? null : List.copyOf(moved);
  }

  /** True when the client could have moved a reported TPOT percentile. */
  public boolean movedAny() {
    return moved != null && !moved.isEmpty();
  }
}
