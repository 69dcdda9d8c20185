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

  /** The words of the launcher's {@code NAME="..."}. */
  private static List<String> words(String launcher, String name) {
    Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(launcher);
    assertTrue(m.find(), name + " in ./tpot");
    return List.of(m.group(1).split(" "));
  }

  @Test
  void theLauncherGivesTheProducersCommandsTheMeasuredSettings() throws IOException {
    String launcher = Files.readString(ROOT.resolve("tpot"));
    assertEquals(ProducerJvm.OPTIONS, words(launcher, "PRODUCER_JVM"));
    assertTrue(launcher.contains("produce|run|demo) JVM=\"$PRODUCER_JVM\" ;;"), launcher);
  }

  @Test
  void theLauncherGivesReplayAndStatsTheArchiveSettings() throws IOException {
    String launcher = Files.readString(ROOT.resolve("tpot"));
    assertEquals(ArchiveJvm.OPTIONS, words(launcher, "ARCHIVE_JVM"));
    assertTrue(
        launcher.contains(String.join("|", ArchiveJvm.COMMANDS) + ") JVM=\"$ARCHIVE_JVM\" ;;"),
        launcher);
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
