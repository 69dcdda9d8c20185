package io.tpotstream.app.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --window} and {@code --group-by}: how events become series of windows, the same in every
 * command that makes windows ({@code aggregate}, {@code stats}, {@code compare} through {@link
 * WindowOptions}; {@code run} and {@code demo} through {@link RunOptions}).
 */
final class SeriesOptions {
  @Option(
      names = "--window",
      defaultValue = "10s",
      description = "Window length, aligned to the epoch (default: ${DEFAULT-VALUE}).")
  Duration window;

  @Option(
      names = "--group-by",
      split = ",",
      paramLabel = "LABEL",
      description = "Labels that split a model into series, e.g. concurrency,target.")
  List<String> groupBy = new ArrayList<>();
}
