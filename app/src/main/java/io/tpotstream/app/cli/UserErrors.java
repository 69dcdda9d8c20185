package io.tpotstream.app.cli;

import io.tpotstream.common.kafka.KafkaAccessException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * A user's mistake (bad config, unreachable Kafka) gets one line that says what to check, not a
 * stack trace; set TPOT_DEBUG=1 to see the trace.
 */
final class UserErrors implements IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
    if (System.getenv("TPOT_DEBUG") != null) {
      e.printStackTrace();
    }
    for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof KafkaAccessException explained) {
        // already one line that says what to check: the Kafka client's own words would only repeat
        // it
        cmd.getErr().println("tpot " + cmd.getCommandName() + ": " + explained.getMessage());
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
    cmd.getErr().println("tpot " + cmd.getCommandName() + ": " + message);
    return 2;
  }
}
