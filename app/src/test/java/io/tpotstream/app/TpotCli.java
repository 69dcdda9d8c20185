package io.tpotstream.app;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * Runs {@code tpot} in this JVM as the command line would, capturing its exit status and output.
 */
final class TpotCli {
  /** What a command did. */
  record Result(int exit, String out, String err) {}

  private TpotCli() {}

  static Result tpot(String... args) {
    CommandLine tpot = Tpot.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    tpot.setOut(new PrintWriter(out));
    tpot.setErr(new PrintWriter(err));
    int exit = tpot.execute(args);
    return new Result(exit, out.toString(), err.toString());
  }
}
