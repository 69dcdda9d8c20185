package io.tpotstream.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --csv}: the sink's summaries CSV, which {@code sink} writes and {@code report} reads. */
final class SummariesCsvOptions {
  @Option(
      names = "--csv",
      defaultValue = "out/summaries.csv",
      description =
          "The sink's summaries CSV; the summaries with their histograms are in the .jsonl beside"
              + " it (default: ${DEFAULT-VALUE}).")
  Path csv;
}
