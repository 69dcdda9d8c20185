package io.tpotstream.app.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code tpot bench} as the product sees it: the benchmarks are a separate program that the {@code
 * ./tpot} launcher builds and starts from a source checkout, never part of the product's class
 * path.
 */
@Command(
    name = "bench",
    description =
        "Benchmarks (B1-B5, S1-S2, P1, JMH): a separate program, run from a source checkout with"
            + " ./tpot bench"
            + " [--quick] (see BENCHMARKS.md).")
final class BenchCommand implements Callable<Integer> {
  @Unmatched List<String> args = new ArrayList<>();

  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine()
        .getErr()
        .println(
            "tpot bench: the benchmarks are not shipped with the product. From a source checkout run"
                + " ./tpot bench --help (the launcher builds bench/target/tpot-bench.jar and runs it).");
    return 2;
  }
}
