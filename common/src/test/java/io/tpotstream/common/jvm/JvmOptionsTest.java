package io.tpotstream.common.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A command's JVM options come from its file in jvm/, as the launcher reads it, and are overridden
 * the way Kafka's scripts are.
 */
class JvmOptionsTest {
  private static final List<String> INSTRUMENT =
      List.of("-Xms1g", "-Xmx1g", "-XX:+UseZGC", "-XX:+PerfDisableSharedMem");
  private static final List<String> SIDECAR =
      List.of(
          "-Xms128m",
          "-Xmx128m",
          "-XX:+UseG1GC",
          "-XX:TieredStopAtLevel=1",
          "-XX:+PerfDisableSharedMem");
  private static final List<String> THROUGHPUT =
      List.of(
          "-Xms2g",
          "-Xmx2g",
          "-XX:+UseParallelGC",
          "-XX:MaxNewSize=256m",
          "-XX:InlineSmallCode=1000",
          "-XX:FreqInlineSize=100",
          "-XX:CompileThresholdScaling=3");

  @Test
  void eachCommandHasItsFileAndTheOthersNone() {
    for (String command : List.of("run", "demo")) {
      assertEquals(INSTRUMENT, JvmOptions.of(command), command);
    }
    assertEquals(SIDECAR, JvmOptions.of("produce"));
    for (String command : List.of("aggregate", "export", "replay", "stats")) {
      assertEquals(THROUGHPUT, JvmOptions.of(command), command);
    }
    assertEquals(List.of(), JvmOptions.of("sink"), "the JVM's defaults");
  }

  @Test
  void theHeapTheRestAndExtraOptionsAreOverriddenAsKafkasScriptsDo() {
    assertEquals(
        List.of(
            "-Xmx8g",
            "-XX:+UseParallelGC",
            "-XX:MaxNewSize=256m",
            "-XX:InlineSmallCode=1000",
            "-XX:FreqInlineSize=100",
            "-XX:CompileThresholdScaling=3"),
        JvmOptions.of("stats", Map.of("TPOT_HEAP_OPTS", "-Xmx8g")));
    assertEquals(
        List.of("-Xms2g", "-Xmx2g", "-XX:+UseG1GC", "-Dx=1"),
        JvmOptions.of(
            "aggregate",
            Map.of("TPOT_JVM_PERFORMANCE_OPTS", " -XX:+UseG1GC ", "TPOT_JAVA_OPTS", "-Dx=1")));
    assertEquals(List.of("-Dx=1"), JvmOptions.of("sink", Map.of("TPOT_JAVA_OPTS", "-Dx=1")));
  }
}
