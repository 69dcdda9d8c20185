package io.tpotstream.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.InputStream;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;

/** JMH's annotation processor ran in the build: its benchmark list names every benchmark. */
class BenchmarkListTest {
  @Test
  void theJmhBenchmarkListNamesEveryHotPathBenchmark() throws IOException {
    Set<String> methods = new TreeSet<>();
    try (InputStream in = getClass().getResourceAsStream(BenchmarkList.BENCHMARK_LIST)) {
      assertNotNull(in, "no benchmark list: the JMH annotation processor did not run");
      for (BenchmarkListEntry entry : BenchmarkList.readBenchmarkList(in)) {
        methods.add(entry.getUsername().replace("io.tpotstream.bench.jmh.", ""));
      }
    }
    assertEquals(
        new TreeSet<>(
            Set.of(
                "HistogramBenchmark.recordMicros",
                "HistogramBenchmark.recordThenP99Of4096",
                "SseParsingBenchmark.loopFramingPerChunk",
                "SseParsingBenchmark.publisherReadPerChunk",
                "Stage1Benchmark.stage1PerEvent",
                "TokenEventCodecBenchmark.decodeStreaming",
                "TokenEventCodecBenchmark.decodeStreamingNotCompact",
                "TokenEventCodecBenchmark.decodeTokenEvent",
                "TokenEventCodecBenchmark.encodeTokenEvent",
                "TokenEventCodecBenchmark.encodeWithTemplate")),
        methods);
  }
}
