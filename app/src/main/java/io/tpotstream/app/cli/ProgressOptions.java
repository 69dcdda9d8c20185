package io.tpotstream.app.cli;

import io.tpotstream.app.Logging;
import io.tpotstream.common.progress.Progress;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * {@code --quiet}, and the progress every long command shows on stderr: a live line on a terminal,
 * a plain line every few seconds otherwise ({@link Progress}).
 */
public final class ProgressOptions {
  @Option(
      names = {"-q", "--quiet"},
      description =
          "No progress and no informational messages on stderr (warnings and errors still show).")
  boolean quiet;

  /** The progress of {@code command} on stderr, shown as the terminal and {@code --quiet} say. */
  public Progress start(String command) {
    return Progress.start(command, mode(), System.err);
  }

  /** Same, on {@code err} (a command's error writer). */
  public Progress start(String command, PrintWriter err) {
    return Progress.start(command, mode(), err);
  }

  /**
   * How progress is shown; when quiet, tpot's own informational log lines ("created topic ...") are
   * turned off too (unless TPOT_LOG_LEVEL names a level).
   */
  public Progress.Mode mode() {
    if (quiet) {
      Logging.onlyWarnings();
    }
    return Progress.Mode.auto(quiet);
  }
}
