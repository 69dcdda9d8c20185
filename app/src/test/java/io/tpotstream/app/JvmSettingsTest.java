package io.tpotstream.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.ProducerJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  @Test
  void theLauncherGivesTheBacklogReadersTheThroughputSettings() throws IOException {
    assertLauncherGives(
        "THROUGHPUT_JVM", ThroughputJvm.OPTIONS, String.join("|", ThroughputJvm.COMMANDS));
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
}
