package io.tpotstream.aggregator.stage2;

/**
 * The settings that shape the state (window, grace, group-by, SLO, timeouts, skew) differ from the
 * ones this application id started with: its stored windows would come out with the new settings,
 * so the aggregator stops.
 */
public final class SettingsChangedException extends RuntimeException {
  public SettingsChangedException(String message) {
    super(message);
  }

  /** The one message for a state built with {@code stored} and a start with {@code now}. */
  public static SettingsChangedException between(String stored, String now) {
    return new SettingsChangedException(
        "settings changed: this application id was started with "
            + stored
            + "; now "
            + now
            + ": use a new --application-id, or the same settings");
  }
}
