package io.tpotstream.app.cli;

import io.tpotstream.app.JvmLog;
import io.tpotstream.app.Logging;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code tpot} command: one subcommand per job. */
@Command(
    name = "tpot",
    mixinStandardHelpOptions = true,
    version = "tpot-stream 0.1.0",
    description = "Measures how smoothly LLM APIs stream tokens (TPOT and its tail), on Kafka.")
public final class Tpot implements Runnable {
  /** The subcommands, in the order the help lists them. */
  private static final List<Class<?>> COMMANDS =
      List.of(
          DemoCommand.class,
          RunCommand.class,
          ProduceCommand.class,
          ProxyCommand.class,
          AggregateCommand.class,
          SinkCommand.class,
          SimulateCommand.class,
          BrokerCommand.class,
          ExportCommand.class,
          ReplayCommand.class,
          StatsCommand.class,
          TraceCommand.class,
          ReportCommand.class,
          CompareCommand.class,
          ModelsCommand.class,
          BenchCommand.class,
          CommandLine.HelpCommand.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Option(
      names = "--gc-log",
      paramLabel = "FILE",
      arity = "0..1",
      fallbackValue = "",
      scope = CommandLine.ScopeType.INHERIT,
      description =
          "Log this JVM's garbage collections and safepoints (every pause, its cause and length)"
              + " to FILE (default: tpot-gc-<pid>.log).")
  void gcLog(String file) {
    JvmLog.enable(
        Path.of(file.isEmpty() ? "tpot-gc-" + ProcessHandle.current().pid() + ".log" : file));
  }

  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line with every subcommand; every {@link Duration} flag reads {@link
   * DurationConverter}s.
   */
  public static CommandLine commandLine() {
    CommandLine tpot = new CommandLine(new Tpot());
    COMMANDS.forEach(tpot::addSubcommand);
    return tpot.registerConverter(Duration.class, new DurationConverter())
        .setExecutionStrategy(Tpot::execute)
        .setExecutionExceptionHandler(new UserErrors());
  }

  /**
   * Runs the command named; {@code -q}/{@code --quiet} ({@link ProgressOptions}), on whichever
   * command takes it, turns tpot's informational log lines off before the command logs any (a
   * command that created a topic before its progress started printed "created topic" with -q).
   */
  private static int execute(CommandLine.ParseResult parsed) {
    CommandLine.ParseResult named = parsed;
    while (named.hasSubcommand()) {
      named = named.subcommand();
    }
    if (named.hasMatchedOption("--quiet")) {
      Logging.onlyWarnings();
    }
    return new CommandLine.RunLast().execute(parsed);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
