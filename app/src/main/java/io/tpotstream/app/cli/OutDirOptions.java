package io.tpotstream.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --out}: the directory of a run's report, for {@code report}, {@code run} and {@code demo}.
 */
final class OutDirOptions {
  @Option(
      names = "--out",
      defaultValue = "out",
      description =
          "Directory for report.html and the PNG charts (run and demo also write the summaries"
              + " CSV there) (default: ${DEFAULT-VALUE}).")
  Path out;
}
