package io.tpotstream.app.cli;

import picocli.CommandLine.Option;

/** {@code --event-loops}: the Vert.x event loops of {@code proxy} and {@code simulate}. */
final class EventLoopsOptions {
  @Option(names = "--event-loops", description = "Event-loop threads (default: one per core).")
  Integer eventLoops;
}
