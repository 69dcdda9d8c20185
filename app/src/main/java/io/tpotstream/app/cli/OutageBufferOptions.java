package io.tpotstream.app.cli;

import picocli.CommandLine.Option;

/**
 * {@code --outage-buffer}: token events held while Kafka is away, {@code produce} and {@code
 * proxy}; each command gives its own default through the constructor.
 */
final class OutageBufferOptions {
  @Option(
      names = "--outage-buffer",
      paramLabel = "EVENTS",
      description =
          "Token events held in memory while Kafka is slow or unreachable (default:"
              + " ${DEFAULT-VALUE}); when the buffer is full, produce stops the run and proxy drops"
              + " and counts the events beyond it.")
  long events;

  OutageBufferOptions(long defaultEvents) {
    this.events = defaultEvents;
  }
}
