package io.tpotstream.app.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --out}: the directory of a run's report, for {@code report}, {@code run} and {@code demo};
 * each command gives its own default through the constructor ({@code run} and {@code demo} one of
 * their own, so that they never write the files a {@code tpot sink} writes by default). Its help is
 * true of every command that takes it; run and demo say in their own description that their
 * summaries go there too.
 */
final class OutDirOptions {
  @Option(
      names = "--out",
      description = "Directory for report.html and the PNG charts (default: ${DEFAULT-VALUE}).")
  Path out;

  OutDirOptions(Path defaultDir) {
    this.out = defaultDir;
  }
}
