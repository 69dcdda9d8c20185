package io.tpotstream.bench;

import io.tpotstream.bench.fidelity.ProducerFidelity;
import io.tpotstream.bench.fidelity.ProxyOverhead;
import io.tpotstream.bench.freshness.Freshness;
import io.tpotstream.bench.history.SinkHistory;
import io.tpotstream.bench.memory.MemoryGrowth;
import io.tpotstream.bench.memory.ProxyMemory;
import io.tpotstream.bench.recompute.Recompute;
import io.tpotstream.bench.simulator.ColdStart;
import io.tpotstream.bench.simulator.PacingCapacity;
import io.tpotstream.bench.throughput.AggregatorThroughput;
import io.tpotstream.broker.LocalKafka;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The end-to-end benchmarks (B1 to B6; S1 and S2 for the simulator; P1 and P2 for the proxy)
 * against one embedded broker, printing every figure with its unit. Benchmarks that fail are
 * reported and the others still run.
 */
public final class BenchSuite {
  /** The benchmarks, in the order they run. */
  public static final List<String> ALL =
      List.of("B1", "B2", "B3", "B4", "B5", "B6", "S1", "S2", "P1", "P2");

  private BenchSuite() {}

  /**
   * Runs the benchmarks in {@code only} (all when empty).
   *
   * @param quick the short suite (about 3 minutes on 2 cores)
   * @param jfrDir when set, each child JVM records a JFR profile here
   * @return the number of benchmarks that failed
   */
  public static int run(boolean quick, Set<String> only, Path jfrDir, PrintStream out) {
    BenchReport report = new BenchReport(out);
    long startNs = System.nanoTime();
    out.println("tpot bench" + (quick ? " --quick" : "") + ": " + Machine.describe());
    out.println("load average at start (1/5/15 min): " + Machine.loadAverage());
    Path workDir = tempDir();
    List<String> childOptions = new ArrayList<>();
    if (jfrDir != null) {
      childOptions.add(
          "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
              + jfrDir.toAbsolutePath()
              + "/");
      // JFR's start-up lines go to stdout, where a child's output is read (B5 compares it)
      childOptions.add("-Xlog:jfr+startup=off");
    }
    int failed = 0;
    try (LocalKafka kafka = LocalKafka.create(0, workDir.resolve("kafka"))) {
      kafka.start();
      BenchEnv env = new BenchEnv(kafka.bootstrapServers(), quick, workDir, childOptions);
      for (String id : ALL) {
        if (!only.isEmpty() && !only.contains(id)) {
          continue;
        }
        try {
          switch (id) {
            case "B1" -> AggregatorThroughput.run(env, report);
            case "B2" -> ProducerFidelity.run(env, report);
            case "B3" -> Freshness.run(env, report);
            case "B4" -> MemoryGrowth.run(env, report);
            case "B5" -> Recompute.run(env, report);
            case "B6" -> SinkHistory.run(env, report);
            case "S1" -> ColdStart.run(env, report);
            case "S2" -> PacingCapacity.run(env, report);
            case "P1" -> ProxyOverhead.run(env, report);
            case "P2" -> ProxyMemory.run(env, report);
            default -> throw new IllegalArgumentException("unknown benchmark " + id);
          }
        } catch (RuntimeException e) {
          failed++;
          report.note(id + " failed: " + e.getMessage());
          e.printStackTrace(out);
        }
        out.println("    (load average now: " + Machine.loadAverage() + ")");
      }
    }
    report.printSummary();
    out.printf(
        Locale.ROOT,
        "%ntotal %.0f s; load average at the end (1/5/15 min): %s%n",
        (System.nanoTime() - startNs) / 1e9,
        Machine.loadAverage());
    if (System.getProperty("tpot.bench.keep") == null) {
      deleteQuietly(workDir);
    } else {
      out.println("scratch files kept in " + workDir);
    }
    return failed;
  }

  private static Path tempDir() {
    try {
      return Files.createTempDirectory("tpot-bench-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a scratch directory", e);
    }
  }

  private static void deleteQuietly(Path dir) {
    try (var paths = Files.walk(dir)) {
      paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // scratch files in the temp directory: nothing to do
    }
  }
}
