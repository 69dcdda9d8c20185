package io.tpotstream.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tpot bench}: the end-to-end benchmarks, or the JMH micro-benchmarks. A program of its own
 * ({@code bench/target/tpot-bench.jar}, started by the {@code ./tpot} launcher), so that JMH and
 * the harness never ride on the product's class path.
 */
@Command(
    name = "tpot bench",
    mixinStandardHelpOptions = true,
    description = {
      "Measure the pipeline on this machine with an embedded broker: B1 aggregator throughput,"
          + " B2 producer fidelity and capacity, B3 freshness, B4 memory, B5 recompute (export,"
          + " replay and stats beside kcat), B6 the sink over a long history; S1 and S2 the simulator's cold start and pacing"
          + " capacity; P1 the proxy's overhead, P2 its memory (see BENCHMARKS.md).",
      "With --jmh, run the JMH micro-benchmarks instead; arguments after -- go to JMH"
          + " (e.g. -- -prof gc)."
    })
public final class BenchMain implements Callable<Integer> {
  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    CommandLine cli =
        new CommandLine(new BenchMain())
            .setExecutionExceptionHandler(
                (e, line, parsed) -> {
                  if (System.getenv("TPOT_DEBUG") != null) {
                    e.printStackTrace();
                  }
                  line.getErr().println("tpot bench: " + e.getMessage());
                  return 2;
                });
    System.exit(cli.execute(args));
  }

  @Option(names = "--quick", description = "The short suite (about 3 minutes on 2 cores).")
  boolean quick;

  @Option(
      names = "--only",
      split = ",",
      paramLabel = "B1..B6,S1,S2,P1,P2",
      description = "Run only these benchmarks, e.g. --only B1,B3.")
  List<String> only = List.of();

  @Option(
      names = "--jfr",
      paramLabel = "DIR",
      description = "Record a JFR profile of each child JVM (producer, aggregator probe) into DIR.")
  Path jfrDir;

  @Option(names = "--jmh", description = "Run the JMH micro-benchmarks (hot paths).")
  boolean jmh;

  @Parameters(paramLabel = "JMH-ARGS", description = "Arguments for JMH (after --).")
  List<String> jmhArgs = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    if (jmh) {
      org.openjdk.jmh.Main.main(jmhArgs.toArray(String[]::new));
      return 0;
    }
    if (!jmhArgs.isEmpty()) {
      throw new IllegalArgumentException(
          "unexpected arguments " + jmhArgs + ": only --jmh takes arguments (after --)");
    }
    Set<String> selected = new TreeSet<>();
    for (String id : only) {
      String b = id.trim().toUpperCase(Locale.ROOT);
      if (!BenchSuite.ALL.contains(b)) {
        throw new IllegalArgumentException(
            "unknown benchmark '" + id + "' in --only: use " + String.join(",", BenchSuite.ALL));
      }
      selected.add(b);
    }
    if (jfrDir != null) {
      Files.createDirectories(jfrDir);
    }
    int failed = BenchSuite.run(quick, selected, jfrDir, System.out);
    return failed == 0 ? 0 : 1;
  }
}
