package io.tpotstream.app.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/**
 * Runs {@code tpot} in this JVM as the command line would, capturing its exit status and output.
 */
public final class TpotCli {
  /** What a command did. */
  public record Result(int exit, String out, String err) {
    /** Whether a whole line of the output matches {@code regex}. */
    public boolean outHasLine(String regex) {
      return out.lines().anyMatch(l -> l.matches(regex));
    }
  }

  private TpotCli() {}

  public static Result tpot(String... args) {
    CommandLine tpot = Tpot.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    tpot.setOut(new PrintWriter(out));
    tpot.setErr(new PrintWriter(err));
    int exit = tpot.execute(args);
    return new Result(exit, out.toString(), err.toString());
  }

  /** {@code tpot} with {@code args} then {@code more}: a test's common arguments, then its own. */
  public static Result tpot(List<String> args, String... more) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of(more));
    return tpot(all.toArray(String[]::new));
  }
}
