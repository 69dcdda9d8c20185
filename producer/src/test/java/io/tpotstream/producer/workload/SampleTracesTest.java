package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The sample traces in docs/traces are what {@link SampleTraces} writes, and read whole as tpot
 * reads a trace: 300, 300 and 200 requests, each format told from its first line. {@code
 * -Dtpot.writeSampleTraces=true} writes them again.
 */
class SampleTracesTest {
  @Test
  void theCommittedSamplesAreTheGeneratedOnesAndReadWhole() throws IOException {
    Map<String, String> samples =
        Map.of(
            SampleTraces.MOONCAKE, SampleTraces.mooncake(),
            SampleTraces.AZURE, SampleTraces.azure(),
            SampleTraces.TPOT, SampleTraces.tpot());
    if (Boolean.getBoolean("tpot.writeSampleTraces")) {
      Files.createDirectories(SampleTraces.DIR);
      for (Map.Entry<String, String> e : samples.entrySet()) {
        Files.writeString(SampleTraces.DIR.resolve(e.getKey()), e.getValue());
      }
    }
    for (Map.Entry<String, String> e : samples.entrySet()) {
      assertEquals(
          e.getValue(),
          Files.readString(SampleTraces.DIR.resolve(e.getKey())),
          e.getKey() + ": rewrite it with -Dtpot.writeSampleTraces=true");
    }
    assertEquals(300, check(SampleTraces.MOONCAKE, TraceFormat.JSONL).requests());
    assertEquals(300, check(SampleTraces.AZURE, TraceFormat.AZURE_CSV).requests());
    TraceFile tpot = check(SampleTraces.TPOT, TraceFormat.JSONL);
    assertEquals(200, tpot.requests());
    assertEquals(64, tpot.blockSize());
    assertEquals(1, tpot.mostLabels());
  }

  private static TraceFile check(String name, TraceFormat expected) {
    Path file = SampleTraces.DIR.resolve(name);
    TraceFile checked = TraceFile.check("trace", file, null, 0, Long.MAX_VALUE);
    assertEquals(expected, checked.format(), name);
    return checked;
  }
}
