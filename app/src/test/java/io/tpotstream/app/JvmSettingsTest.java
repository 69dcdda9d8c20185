package io.tpotstream.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.ProducerJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The launcher starts the producer's JVM with exactly the settings the benchmarks measured ({@link
 * ProducerJvm#OPTIONS}), and the image runs the launcher; the docs show the same. The launcher
 * starts {@code aggregate}, {@code replay} and {@code stats} with theirs ({@link
 * ThroughputJvm#OPTIONS}).
 */
class JvmSettingsTest {
  private static final Path ROOT = Path.of("..");

  @Test
  void theLauncherGivesTheProducersCommandsTheMeasuredSettings() throws IOException {
    assertLauncherGives("PRODUCER_JVM", ProducerJvm.OPTIONS, "produce|run|demo");
  }

  @Tag("slow")
  @Test
  void theLauncherGivesTheBacklogReadersTheThroughputSettings() throws Exception {
    assertLauncherGives(
        "THROUGHPUT_JVM", ThroughputJvm.EVERYWHERE, String.join("|", ThroughputJvm.COMMANDS));
    String launcher = Files.readString(ROOT.resolve("tpot"));
    assertTrue(
        launcher.contains(
            "THROUGHPUT_JVM_LINUX=\"" + String.join(" ", ThroughputJvm.ON_LINUX) + "\""),
        launcher);
    // on this system the launcher gives what ThroughputJvm.OPTIONS says
    assertEquals(ThroughputJvm.OPTIONS, launcherGives("-Xmx2g", null, "replay"));
    assertEquals(
        List.of(
            "-XX:+UseParallelGC",
            "-XX:MaxNewSize=256m",
            "-XX:InlineSmallCode=1000",
            "-XX:+UseTransparentHugePages",
            "-Xlog:pagesize=off"),
        ThroughputJvm.options("Linux"));
    assertEquals(ThroughputJvm.EVERYWHERE, ThroughputJvm.options("Mac OS X"));
    assertEquals(ThroughputJvm.EVERYWHERE, ThroughputJvm.options("Windows 11"));
  }

  /** {@code ./tpot} sets {@code variable} to {@code options} and uses it for {@code commands}. */
  private static void assertLauncherGives(String variable, List<String> options, String commands)
      throws IOException {
    String launcher = Files.readString(ROOT.resolve("tpot"));
    Matcher m = Pattern.compile(variable + "=\"([^\"]*)\"").matcher(launcher);
    assertTrue(m.find(), variable + " in ./tpot");
    assertEquals(options, List.of(m.group(1).split(" ")));
    assertTrue(launcher.contains(commands + ") JVM=\"$" + variable + "\" ;;"), launcher);
  }

  @Test
  void theImageRunsTheLauncherOnTheJarWhereTheLauncherLooksForIt() throws IOException {
    String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
    assertTrue(dockerfile.contains("ENTRYPOINT [\"/opt/tpot/tpot\"]"), "the launcher is the entry");
    assertTrue(dockerfile.contains("COPY --from=build /src/tpot tpot"), "the launcher is copied");
    String launcher = Files.readString(ROOT.resolve("tpot"));
    assertTrue(launcher.contains("JAR=\"$ROOT/app/target/tpot.jar\""), launcher);
    assertTrue(
        dockerfile.contains("COPY --from=build /src/app/target/tpot.jar app/target/tpot.jar"),
        "the jar where the launcher looks for it");
    assertTrue(dockerfile.contains("COPY --from=build /src/app/target/lib app/target/lib"));
  }

  @Test
  void theLauncherTrainsTheClassArchiveWithTheTrainingCommandAndLeavesTheProducerOut()
      throws IOException {
    String launcher = Files.readString(ROOT.resolve("tpot"));
    assertTrue(launcher.contains("-jar \"$APP_JAR\" " + ClassArchiveTraining.NAME + " "), launcher);
    assertTrue(
        launcher.contains(
            "[[ \"$MODULE\" == \"app\" && \"$COMMAND\" =~ ^(produce|run|demo)$ ]] && return 0"),
        launcher);
  }

  @Test
  void theProducerPageShowsThem() throws IOException {
    String page = Files.readString(ROOT.resolve("docs").resolve("producer.md"));
    assertTrue(page.contains(String.join(" ", ProducerJvm.OPTIONS)), "docs/producer.md");
  }

  @Tag("slow")
  @Test
  void theYoungGenerationsCapIsLeftOutWhereItWouldStarveTheOldGeneration() throws Exception {
    List<String> uncapped =
        ThroughputJvm.OPTIONS.stream().filter(o -> !o.startsWith("-XX:MaxNewSize=")).toList();
    List<String> compilerOnly = withoutCollector();
    assertEquals(ThroughputJvm.OPTIONS, launcherGives("-Xmx2g", null, "stats", "x.jsonl"));
    assertEquals(ThroughputJvm.OPTIONS, launcherGives("-XX:MaxHeapSize=4g", null, "aggregate"));
    assertEquals(uncapped, launcherGives("-Xmx512m", null, "stats", "x.jsonl"));
    assertEquals(uncapped, launcherGives("-Xmx2g -Xmx768m", null, "replay"));
    assertEquals(uncapped, launcherGives("-Xmn64m", null, "export"));
    assertEquals(uncapped, launcherGives("-XX:MaxRAMPercentage=50", null, "stats"));
    assertEquals(compilerOnly, launcherGives("-XX:+UseG1GC", null, "stats", "x.jsonl"));
    assertEquals(compilerOnly, launcherGives(null, "-XX:+UseSerialGC", "replay"));
    assertEquals(uncapped, launcherGives("-Xmx010m", null, "stats")); // 10 MB, not octal
    assertEquals(uncapped, launcherGives("-Xmx0x40000000", null, "stats")); // not read: no cap
    assertEquals(ThroughputJvm.OPTIONS, launcherGives("-Xmx08g", null, "stats"));
    assertEquals(ProducerJvm.OPTIONS, launcherGives("-Xmx512m", null, "produce"));
    assertEquals(List.of(), launcherGives("-Xmx2g", null, "sink"));
    // a bare --gc-log takes the next word as its file unless it is a command, as picocli reads it
    assertEquals(
        ThroughputJvm.OPTIONS, launcherGives("-Xmx2g", null, "--gc-log", "gc.log", "stats"));
    assertEquals(ThroughputJvm.OPTIONS, launcherGives("-Xmx2g", null, "--gc-log", "stats"));
  }

  @Tag("slow")
  @Test
  void anInliningOrPageSettingOfTheUsersReplacesOurs() throws Exception {
    // in JAVA_TOOL_OPTIONS or JDK_JAVA_OPTIONS the user's settings come before ours, which would
    // win
    List<String> withoutInlining =
        ThroughputJvm.OPTIONS.stream().filter(o -> !o.startsWith("-XX:InlineSmallCode=")).toList();
    List<String> withoutHugePages =
        ThroughputJvm.OPTIONS.stream()
            .filter(o -> !o.equals("-XX:+UseTransparentHugePages"))
            .toList();
    assertEquals(withoutInlining, launcherGives(null, "-XX:InlineSmallCode=2000", "stats"));
    assertEquals(withoutHugePages, launcherGives(null, "-XX:-UseTransparentHugePages", "replay"));
    assertEquals(withoutHugePages, launcherGives(null, "-XX:+UseLargePages", "aggregate"));
    assertEquals(
        withoutInlining,
        ThroughputJvm.forChildJvm(Map.of("JDK_JAVA_OPTIONS", "-XX:InlineSmallCode=2000")));
    assertEquals(
        withoutHugePages,
        ThroughputJvm.forChildJvm(Map.of("JAVA_TOOL_OPTIONS", "-XX:+UseLargePages -Xss1m")));
  }

  @Tag("slow")
  @Test
  void tpotRunsBackendGetsNoCollectorOfOursBesideTheUsers() {
    List<String> compilerOnly = withoutCollector();
    assertEquals(ThroughputJvm.OPTIONS, ThroughputJvm.forChildJvm(Map.of()));
    assertEquals(
        compilerOnly,
        ThroughputJvm.forChildJvm(Map.of("JAVA_TOOL_OPTIONS", "-Xss1m -XX:+UseG1GC")));
    assertEquals(
        compilerOnly, ThroughputJvm.forChildJvm(Map.of("JDK_JAVA_OPTIONS", "-XX:+UseZGC")));
  }

  /** Our options but the collector's: what stays beside a collector of the user's. */
  private static List<String> withoutCollector() {
    List<String> kept =
        ThroughputJvm.OPTIONS.stream()
            .filter(o -> !o.equals("-XX:+UseParallelGC") && !o.startsWith("-XX:MaxNewSize="))
            .toList();
    assertTrue(kept.contains("-XX:InlineSmallCode=1000"), kept.toString());
    return kept;
  }

  /** The JVM options {@code ./tpot args} would start its JVM with (it builds and runs nothing). */
  private static List<String> launcherGives(
      String tpotJavaOpts, String javaToolOptions, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", ROOT.resolve("tpot").toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().remove("TPOT_JAVA_OPTS");
    pb.environment().remove("JAVA_TOOL_OPTIONS");
    pb.environment().remove("JDK_JAVA_OPTIONS");
    pb.environment().put("TPOT_LAUNCHER_DRY_RUN", "1");
    if (tpotJavaOpts != null) {
      pb.environment().put("TPOT_JAVA_OPTS", tpotJavaOpts);
    }
    if (javaToolOptions != null) {
      pb.environment().put("JAVA_TOOL_OPTIONS", javaToolOptions);
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    String line = out.strip();
    return line.isEmpty() ? List.of() : List.of(line.split(" +"));
  }
}
