package io.tpotstream.app;

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
          ReportCommand.class,
          CompareCommand.class,
          ModelsCommand.class,
          BenchCommand.class,
          ClassArchiveTraining.class,
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
    Logging.startInBackground(); // beside the command line's parsing
    System.exit(commandLine(args).execute(args));
  }

  /**
   * The command line with every subcommand, for tests and the class archive's training; every
   * {@link Duration} flag reads {@link HumanDuration}s.
   */
  public static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /**
   * The command line that {@code args} need: when their first word names a subcommand, only that
   * one. picocli builds each subcommand's model by reflection, a tenth of a second for all of them
   * (BENCHMARKS.md, "The command line"), which every command paid before its first record. The
   * help, a misspelt command and no command at all get every subcommand, as before.
   */
  public static CommandLine commandLine(String[] args) {
    String word = commandWord(args);
    List<Class<?>> named = named(word);
    CommandLine tpot = new CommandLine(new Tpot());
    for (Class<?> command : named.isEmpty() || word.equals("help") ? COMMANDS : named) {
      tpot.addSubcommand(command);
    }
    return tpot.registerConverter(Duration.class, new HumanDuration())
        .setExecutionExceptionHandler(new UserErrors());
  }

  /**
   * The first word that is not an option, but for a bare {@code --gc-log}'s file: picocli takes the
   * word after it as its value unless it names a subcommand (the launcher reads it the same way).
   */
  private static String commandWord(String[] args) {
    String previous = "";
    for (String arg : args) {
      if (arg.startsWith("-")) {
        previous = arg;
      } else if (previous.equals("--gc-log") && named(arg).isEmpty()) {
        previous = "";
      } else {
        return arg;
      }
    }
    return "";
  }

  /** The subcommand {@code word} names (by its name or an alias), or none. */
  private static List<Class<?>> named(String word) {
    return COMMANDS.stream()
        .filter(
            c -> {
              Command command = c.getAnnotation(Command.class);
              return command.name().equals(word) || List.of(command.aliases()).contains(word);
            })
        .toList();
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
