package io.tpotstream.producer;

import java.util.List;

/**
 * The JVM settings of the producer's JVM, chosen and measured for the instrument (BENCHMARKS.md, B2
 * "JVM settings"; docs/producer.md, "JVM settings"). The {@code tpot} launcher (for {@code
 * produce}, {@code run}, {@code demo}; the image runs the same launcher) carries the same list, and
 * a test keeps them in step; the benchmarks start their producer JVMs with it.
 */
public final class ProducerJvm {
  /** The options, in the order the launcher writes them. */
  public static final List<String> OPTIONS =
      List.of(
          "-XX:+UseZGC", "-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch", "-XX:+PerfDisableSharedMem");

  private ProducerJvm() {}
}
