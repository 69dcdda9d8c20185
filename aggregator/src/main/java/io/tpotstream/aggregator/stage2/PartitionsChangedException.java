package io.tpotstream.aggregator.stage2;

/**
 * The input topic's partition count differs from the one this application id started with: the
 * markers can no longer say when a window is complete, so the aggregator stops.
 */
public final class PartitionsChangedException extends RuntimeException {
  public PartitionsChangedException(String message) {
    super(message);
  }
}
