package io.tpotstream.producer.traffic;

import io.tpotstream.producer.config.Arrival;
import java.util.SplittableRandom;

/**
 * The intended send times of an open-loop run: request 0 at the first moment the rate is above 0,
 * then one per unit of Λ (constant spacing) or per exponential draw of mean 1 in Λ (Poisson
 * spacing, seeded), so a constant rate gives gaps of exactly 1/rate or exponential gaps of mean
 * 1/rate. Not thread-safe (one scheduler thread uses it).
 */
public final class Arrivals implements Schedule {
  private final RateSchedule schedule;
  private final Arrival spacing;
  private final SplittableRandom random;
  private double s;
  private boolean first = true;

  public Arrivals(RateSchedule schedule, Arrival spacing, long seed) {
    this.schedule = schedule;
    this.spacing = spacing;
    this.random = new SplittableRandom(seed);
  }

  /** The next request's intended time in ns after the run's start, or -1 past the schedule. */
  @Override
  public long nextNs() {
    if (!first) {
      s += spacing == Arrival.POISSON ? -Math.log(1.0 - random.nextDouble()) : 1.0;
    }
    first = false;
    double t = schedule.timeAt(s);
    return Double.isInfinite(t) ? -1 : Math.round(t * 1e9);
  }
}
