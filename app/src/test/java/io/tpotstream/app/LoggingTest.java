package io.tpotstream.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.tpotstream.common.jvm.JavaLauncher;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A command that lowers tpot's logging to warnings ({@code -q}, a progress line): asked before
 * log4j reads its configuration or after, tpot's INFO lines are gone and its warnings stay. Each
 * case runs in a JVM of its own, since log4j starts once per JVM, with the product's log4j2.xml
 * (the test class path also holds the testkit's log4j2-test.xml, which log4j would otherwise
 * prefer).
 */
@Tag("slow")
class LoggingTest {
  @TempDir Path dir;

  @Test
  void warningsOnlyAskedBeforeLoggingStartsHidesInfoLines() throws Exception {
    assertEquals(List.of("WARN warn-line"), child("ask-at-once", null));
  }

  @Test
  void warningsOnlyAskedAfterLoggingStartedHidesInfoLines() throws Exception {
    assertEquals(List.of("WARN warn-line"), child("ask-after-start", null));
  }

  @Test
  void theConfigurationReadsTheLevelFromTheSystemPropertyAlone() throws Exception {
    // what a configuration read after the ask starts with, without the starting thread's help
    assertEquals(List.of("WARN warn-line"), child("property-only", null));
  }

  @Test
  void withoutTheAskOrWithTpotLogLevelSetInfoLinesShow() throws Exception {
    // the cases above would pass on a configuration that never shows INFO: these show it does
    assertEquals(List.of("INFO info-line", "WARN warn-line"), child("never-ask", null));
    assertEquals(List.of("INFO info-line", "WARN warn-line"), child("ask-at-once", "INFO"));
  }

  @Test
  void urlsInLogLinesAndExceptionsShowNoUserInfoOrQueryValues() throws Exception {
    List<String> lines = child("secrets", null);
    assertEquals(
        "WARN to http://***@h:1/v1?subscription-key=***&api-version=1 and back", lines.get(0));
    String all = String.join("\n", allLines);
    assertTrue(all.contains("IllegalStateException: https://***@h/v1?key=***&alt=sse failed"), all);
    assertFalse(all.contains("S3CRET"), all);
  }

  /** Every line of the last probe's stderr. */
  private String allLines = "";

  /** The probe's log lines on stderr (level and message), in a fresh JVM. */
  private List<String> child(String mode, String tpotLogLevel)
      throws IOException, InterruptedException {
    Path err = Files.createTempFile(dir, "probe", ".err");
    ProcessBuilder builder =
        JavaLauncher.builder(
                List.of(),
                Probe.class,
                List.of("-Dlog4j2.configurationFile=classpath:log4j2.xml"),
                List.of(mode))
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(err.toFile());
    builder.environment().remove("TPOT_LOG_LEVEL");
    if (tpotLogLevel != null) {
      builder.environment().put("TPOT_LOG_LEVEL", tpotLogLevel);
    }
    Process process = builder.start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      fail("the probe did not end within 60 s: " + Files.readString(err));
    }
    String said = Files.readString(err);
    allLines = said;
    assertEquals(0, process.exitValue(), said);
    // log4j2.xml's pattern: "HH:mm:ss.SSS LEVEL Logger - message"
    return said.lines()
        .filter(line -> line.contains(" probe - "))
        .map(line -> line.split(" +")[1] + " " + line.substring(line.indexOf(" - ") + 3))
        .toList();
  }

  /** Lowers the logging as {@code mode} says, then logs two lines. */
  static final class Probe {
    public static void main(String[] args) {
      switch (args[0]) {
        case "ask-at-once" -> Logging.onlyWarnings();
        case "ask-after-start" -> {
          LoggerFactory.getLogger("io.tpotstream.other"); // log4j reads its configuration
          Logging.onlyWarnings();
        }
        case "property-only" -> System.setProperty(Logging.LEVEL_PROPERTY, "WARN");
        case "never-ask" -> {}
        case "secrets" -> {
          LoggerFactory.getLogger("io.tpotstream.probe")
              .warn(
                  "to http://u:pw-S3CRET@h:1/v1?subscription-key=Q-S3CRET&api-version=1 and back",
                  new IllegalStateException("https://x@h/v1?key=E-S3CRET&alt=sse failed"));
          return;
        }
        default -> throw new IllegalArgumentException(args[0]);
      }
      org.slf4j.Logger log = LoggerFactory.getLogger("io.tpotstream.probe");
      log.info("info-line");
      log.warn("warn-line");
    }
  }
}
