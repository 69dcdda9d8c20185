package io.tpotstream.app;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The JVM settings of the commands that read a backlog as fast as they can: {@code aggregate},
 * {@code export}, {@code replay} and {@code stats}.
 *
 * <ul>
 *   <li>The throughput collector: no concurrent cycles and cheaper write barriers than G1, no
 *       humongous objects for the archives' large blocks. Measured: G1 spent a quarter of a second
 *       in 74 pauses on a two-million-event replay and lost 10-20% of its wall time (BENCHMARKS.md,
 *       B5); the aggregator read a five-million-event backlog 9% faster end to end and 16% faster
 *       in steady state (B1), its pauses a few milliseconds against a freshness of a second.
 *   <li>Its young generation capped at 256 MB. Left to itself, the collector grew it to 1.5 GB
 *       within seconds, and every page of it was new memory the kernel had to fault in and zero: a
 *       third of a fresh aggregator's stream thread was page faults. Capped, the same pages are
 *       reused after each collection: a fresh aggregate's last summary of two million events came
 *       at 6.5-7.5 s instead of 12 s, stats and replay 8-15% sooner with 20-40% less memory (B1,
 *       "The 4th: the young generation capped"). The cap leaves the old generation room only in a
 *       heap of 1 GB or more: the launcher leaves it out when the user sizes the young generation,
 *       sets a heap under 1 GB or sizes it from the memory, and, with no heap of the user's own, on
 *       a machine under 4 GB. Export, which kept the JVM's defaults (G1), took 6.7-6.8 s instead of
 *       7.6-9.2 s with half the memory (B5, "Export with the throughput settings").
 *   <li>Less inlining into large compiled methods ({@code InlineSmallCode}, 2500 bytes by default
 *       on x86-64): the server compiler spent a quarter of a replay's CPU, a third of it compiling
 *       the Kafka producer's append path three times over (each compiled method some 50 KB, thrown
 *       away whenever one of its many inlined branches was first taken). At 1000 a
 *       two-million-event replay used a fifth less CPU and ended 15% sooner, stats 4% sooner, a
 *       fresh aggregate's last summary of two or ten million events came 10-20% sooner; export did
 *       not change (B5, "Less inlining"). It is a compiler setting: it stays when the user picks a
 *       collector.
 *   <li>On Linux, the heap in transparent huge pages. A tenth of a replay's CPU was page faults
 *       (new pages of eden at each allocation, survivor and old pages at each collection), each a
 *       trip through the kernel that a two-megabyte page makes once instead of 512 times; where the
 *       kernel leaves huge pages to the program ({@code madvise}, the usual default) the JVM asks
 *       for them only with this flag. A replay ended 12% sooner with 14% less CPU, stats and export
 *       15% sooner, a fresh aggregate about the same (B5, "Huge pages"). On a kernel without them
 *       the JVM says so on stdout, where it would corrupt a command's output: {@code
 *       -Xlog:pagesize=off} keeps it quiet. Other systems do not know the flag.
 * </ul>
 *
 * <p>The {@code tpot} launcher carries the same list (a test keeps them in step), the B5 benchmark
 * starts its replay and stats JVMs with it and {@code tpot run} its backend's. The producer's
 * commands have their own ({@code ProducerJvm}): what it measures must not pause.
 */
public final class ThroughputJvm {
  /** The options on every system, in the order the launcher writes them. */
  static final List<String> EVERYWHERE =
      List.of("-XX:+UseParallelGC", "-XX:MaxNewSize=256m", "-XX:InlineSmallCode=1000");

  /** The options added on Linux. */
  static final List<String> ON_LINUX =
      List.of("-XX:+UseTransparentHugePages", "-Xlog:pagesize=off");

  /** The options on this system, in the order the launcher writes them. */
  public static final List<String> OPTIONS = options(System.getProperty("os.name", ""));

  /** The commands that run with them. */
  public static final List<String> COMMANDS = List.of("aggregate", "export", "replay", "stats");

  private static final Pattern COLLECTOR =
      Pattern.compile("(^|\\s)-XX:\\+Use(Serial|Parallel|G1|Z|Shenandoah|Epsilon)GC(\\s|$)");

  /** The options about the collector, which a collector of the user's replaces. */
  private static final Pattern COLLECTOR_OPTION =
      Pattern.compile("-XX:(\\+Use\\w+GC|MaxNewSize=.*)");

  /** A page size setting of the user's, which replaces our huge pages. */
  private static final Pattern PAGES =
      Pattern.compile("(^|\\s)-XX:[+-]Use(TransparentHugePages|LargePages)(\\s|$)");

  /** An inlining setting of the user's, which replaces ours. */
  private static final Pattern INLINING = Pattern.compile("(^|\\s)-XX:InlineSmallCode=");

  /** The options on the system {@code osName} names (as the {@code os.name} property does). */
  static List<String> options(String osName) {
    return osName.toLowerCase(Locale.ROOT).startsWith("linux")
        ? Stream.concat(EVERYWHERE.stream(), ON_LINUX.stream()).toList()
        : EVERYWHERE;
  }

  private ThroughputJvm() {}

  /**
   * The options for a JVM that tpot starts itself ({@code tpot run}'s backend, with its own heap),
   * which inherits JAVA_TOOL_OPTIONS and JDK_JAVA_OPTIONS from {@code environment}, as the launcher
   * does: none of our collector's when they name a collector (the JVM refuses two), and not our
   * inlining or our huge pages when they set their own (ours, later on the command line, would
   * win).
   */
  public static List<String> forChildJvm(Map<String, String> environment) {
    String user =
        environment.getOrDefault("JAVA_TOOL_OPTIONS", "")
            + " "
            + environment.getOrDefault("JDK_JAVA_OPTIONS", "");
    boolean collector = COLLECTOR.matcher(user).find();
    boolean inlining = INLINING.matcher(user).find();
    boolean pages = PAGES.matcher(user).find();
    return OPTIONS.stream()
        .filter(o -> !(collector && COLLECTOR_OPTION.matcher(o).matches()))
        .filter(o -> !(inlining && o.startsWith("-XX:InlineSmallCode=")))
        .filter(o -> !(pages && o.equals("-XX:+UseTransparentHugePages")))
        .toList();
  }
}
