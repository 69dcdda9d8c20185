package io.tpotstream.app.cli;

import io.tpotstream.aggregator.stage1.StageSettings;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How events become window summaries, the same for the live aggregator ({@code aggregate}) and the
 * offline one ({@code stats}): window length and grace, series labels, when a request is abandoned
 * and a producer stale, the client-lag threshold, how far a clock may run ahead.
 */
final class WindowOptions {
  @Mixin SeriesOptions series;

  @Option(
      names = "--grace",
      defaultValue = "0s",
      description = "Extra wait after a window's end before it closes (default: ${DEFAULT-VALUE}).")
  Duration grace;

  @Option(
      names = "--request-timeout",
      defaultValue = "10m",
      description = "A request silent this long is counted abandoned (default: ${DEFAULT-VALUE}).")
  Duration requestTimeout;

  @Option(
      names = "--producer-timeout",
      defaultValue = "60s",
      description =
          "A producer silent this long by the broker's clock no longer holds windows open;"
              + " producers and series gone this long are forgotten (default: ${DEFAULT-VALUE}).")
  Duration producerTimeout;

  @Option(
      names = "--max-clock-skew",
      defaultValue = "5m",
      description =
          "An event time or watermark this far ahead of its record's broker timestamp is not"
              + " trusted: the record goes to the dead letters (default: ${DEFAULT-VALUE}).")
  Duration maxClockSkew;

  @Option(
      names = "--client-lag-threshold",
      defaultValue = "1ms",
      description =
          "A window is clientSuspect when the gaps a producer's own event-loop lag touched raise"
              + " one of its reported TPOT percentiles by more than this (default:"
              + " ${DEFAULT-VALUE}; e.g. 500us, 5ms).")
  Duration clientLagThreshold;

  /** The stages' settings these options give. */
  StageSettings settings() {
    return new StageSettings(
            series.window,
            grace,
            series.groupBy,
            requestTimeout,
            producerTimeout,
            clientLagThreshold)
        .withMaxClockSkew(maxClockSkew);
  }
}
