package io.tpotstream.aggregator.stage2;

/**
 * The settings that shape the state (window, grace, group-by, SLO) differ from the ones this
 * application id started with: its stored windows would come out with the new settings, so the
 * aggregator stops.
 */
public final class SettingsChangedException extends RuntimeException {
  public SettingsChangedException(String message) {
    super(message);
  }
}
