package io.tpotstream.simulator.truth;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.tpotstream.common.stats.LatencyHistogram;
import java.math.BigDecimal;
import java.util.Optional;

/**
 * The pacing error over every model: per chunk, how far from its due instant it went out, late or
 * early (its gap, or its TTFT, differed from what its profile asked by as much). The simulator's
 * promise is a p99 of at most {@link #LIMIT_MICROS} µs; above it, gaps measured against this
 * simulator are off by up to that much.
 *
 * @param chunks chunks sent
 * @param p50Ms median pacing error, null when no chunk was sent
 * @param p99Ms 99th percentile
 * @param maxMs the largest
 * @param limitMs the promised p99, 0.2 ms
 * @param withinLimit p99 at most the limit (true when no chunk was sent)
 */
@JsonPropertyOrder({"chunks", "p50Ms", "p99Ms", "maxMs", "limitMs", "withinLimit"})
public record Pacing(
    long chunks,
    BigDecimal p50Ms,
    BigDecimal p99Ms,
    BigDecimal maxMs,
    BigDecimal limitMs,
    boolean withinLimit) {

  /** The p99 pacing error the simulator promises, in µs. */
  public static final long LIMIT_MICROS = 200;

  static Pacing of(LatencyHistogram errors) {
    if (errors.count() == 0) {
      return new Pacing(0, null, null, null, LatencyHistogram.ms(LIMIT_MICROS), true);
    }
    long p99Micros = errors.percentileMicros(99);
    return new Pacing(
        errors.count(),
        LatencyHistogram.ms(errors.percentileMicros(50)),
        LatencyHistogram.ms(p99Micros),
        LatencyHistogram.ms(errors.maxMicros()),
        LatencyHistogram.ms(LIMIT_MICROS),
        p99Micros <= LIMIT_MICROS);
  }

  /** One line that warns when the p99 is above the limit, saying what it means and what to do. */
  public Optional<String> warning() {
    if (withinLimit) {
      return Optional.empty();
    }
    return Optional.of(
        "warning: the simulator's pacing error p99 is "
            + p99Ms.toPlainString()
            + " ms, above its "
            + limitMs.toPlainString()
            + " ms limit: chunks went out up to that much later than their profile asks (the"
            + " machine was busy, or more streams than it can pace), so gaps measured against it"
            + " differ from the profile by up to that much; give it a quieter machine or fewer"
            + " streams");
  }
}
