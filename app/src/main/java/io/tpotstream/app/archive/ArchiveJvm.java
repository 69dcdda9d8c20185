package io.tpotstream.app.archive;

import java.util.List;

/**
 * The JVM settings of {@code replay} and {@code stats}, which hold a whole archive in memory as
 * large blocks and sort it: the throughput collector, which has no humongous objects and no
 * concurrent cycles to start as the blocks arrive (G1 spent a quarter of a second in 74 pauses on a
 * two-million-event replay and lost 10-20% of its wall time; BENCHMARKS.md, B5). The {@code tpot}
 * launcher carries the same list (a test keeps them in step) and the B5 benchmark starts its replay
 * and stats JVMs with it.
 */
public final class ArchiveJvm {
  /** The options, in the order the launcher writes them. */
  public static final List<String> OPTIONS = List.of("-XX:+UseParallelGC");

  /** The commands that run with them. */
  public static final List<String> COMMANDS = List.of("replay", "stats");

  private ArchiveJvm() {}
}
