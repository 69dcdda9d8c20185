package io.tpotstream.producer.traffic;

/**
 * Where an open loop's intended send times come from: a rate ({@link Arrivals}) or a trace ({@link
 * TraceReplay}, which also says which of its requests is due). Not thread-safe (one scheduler
 * thread uses it).
 */
public interface Schedule extends AutoCloseable {
  /** The next request's intended time in ns after the schedule's start, or -1 past its end. */
  long nextNs();

  /** The trace's request due at the time {@link #nextNs} returned last; null for a rate. */
  default TraceReplay.Entry due() {
    return null;
  }

  /** Lets go of what it holds (a trace's file). */
  @Override
  default void close() {}
}
