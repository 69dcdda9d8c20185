package io.tpotstream.app;

import java.util.List;

/**
 * The JVM settings of the commands that read a backlog as fast as they can: {@code aggregate},
 * {@code replay} and {@code stats}. The throughput collector: no concurrent cycles and cheaper
 * write barriers than G1, no humongous objects for the archives' large blocks. Measured: G1 spent a
 * quarter of a second in 74 pauses on a two-million-event replay and lost 10-20% of its wall time
 * (BENCHMARKS.md, B5); the aggregator read a five-million-event backlog 9% faster end to end and
 * 16% faster in steady state (B1), its pauses a few milliseconds against a freshness of a second.
 * The {@code tpot} launcher carries the same list (a test keeps them in step) and the B5 benchmark
 * starts its replay and stats JVMs with it. The producer's commands have their own ({@code
 * ProducerJvm}): what it measures must not pause.
 */
public final class ThroughputJvm {
  /** The options, in the order the launcher writes them. */
  public static final List<String> OPTIONS = List.of("-XX:+UseParallelGC");

  /** The commands that run with them. */
  public static final List<String> COMMANDS = List.of("aggregate", "replay", "stats");

  private ThroughputJvm() {}
}
