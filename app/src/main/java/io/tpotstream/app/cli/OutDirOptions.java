package io.tpotstream.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --out}: the directory of a run's report, for {@code report}, {@code run} and {@code demo};
 * each command gives its own default through the constructor ({@code run} and {@code demo} one of
 * their own, so that they never write the files a {@code tpot sink} writes by default).
 */
final class OutDirOptions {
  @Option(
      names = "--out",
      description =
          "Directory for report.html and the PNG charts (run and demo also write the summaries"
              + " CSV there) (default: ${DEFAULT-VALUE}).")
  Path out;

  OutDirOptions(Path defaultDir) {
    this.out = defaultDir;
  }
}
