package io.tpotstream.app.cli;

import io.tpotstream.common.kafka.KafkaAccessException;
import io.tpotstream.common.secret.Secrets;
import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * A user's mistake (bad config, unreachable Kafka) gets one line that says what to check, not a
 * stack trace; set TPOT_DEBUG=1 to see the trace. Both show every URL as {@link Secrets} does (no
 * user-info, no query value but {@code api-version} and {@code alt}).
 */
final class UserErrors implements IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
    if (System.getenv("TPOT_DEBUG") != null) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      cmd.getErr().print(Secrets.NONE.redact(trace.toString()));
    }
    for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof KafkaAccessException explained) {
        // already one line that says what to check: the Kafka client's own words would only repeat
        // it
        cmd.getErr()
            .println(
                "tpot "
                    + cmd.getCommandName()
                    + ": "
                    + Secrets.NONE.redact(explained.getMessage()));
        return 2;
      }
    }
    StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable cause = e.getCause();
        cause != null && cause != cause.getCause();
        cause = cause.getCause()) {
      if (cause.getMessage() != null && !message.toString().contains(cause.getMessage())) {
        message.append(": ").append(cause.getMessage());
      }
    }
    cmd.getErr()
        .println("tpot " + cmd.getCommandName() + ": " + Secrets.NONE.redact(message.toString()));
    return 2;
  }
}
