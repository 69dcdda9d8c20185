package io.tpotstream.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.app.archive.ArchiveJvm;
import io.tpotstream.producer.ProducerJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The launcher and the image start the producer's JVM with exactly the settings the benchmarks
 * measured ({@link ProducerJvm#OPTIONS}); the docs show the same. The launcher starts {@code
 * replay} and {@code stats} with theirs ({@link ArchiveJvm#OPTIONS}).
 */
class JvmSettingsTest {
  private static final Path ROOT = Path.of("..");

  @Test
  void theLauncherGivesTheProducersCommandsTheMeasuredSettings() throws IOException {
    assertLauncherGives("PRODUCER_JVM", ProducerJvm.OPTIONS, "produce|run|demo");
  }

  @Test
  void theLauncherGivesReplayAndStatsTheArchiveSettings() throws IOException {
    assertLauncherGives("ARCHIVE_JVM", ArchiveJvm.OPTIONS, String.join("|", ArchiveJvm.COMMANDS));
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
  void theImageRunsWithTheSameSettings() throws IOException {
    String dockerfile = Files.readString(ROOT.resolve("Dockerfile"));
    Matcher m = Pattern.compile("ENTRYPOINT \\[\"java\", (.*), \"-jar\"").matcher(dockerfile);
    assertTrue(m.find(), "ENTRYPOINT with java options");
    List<String> options =
        Arrays.stream(m.group(1).split(",")).map(s -> s.trim().replace("\"", "")).toList();
    assertEquals(ProducerJvm.OPTIONS, options);
  }

  @Test
  void theProducerPageShowsThem() throws IOException {
    String page = Files.readString(ROOT.resolve("docs").resolve("producer.md"));
    assertTrue(page.contains(String.join(" ", ProducerJvm.OPTIONS)), "docs/producer.md");
  }
}
