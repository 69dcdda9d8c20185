package io.tpotstream.aggregator.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The summaries of fixed event sets, byte for byte as the aggregator wrote them before its rewrite
 * (issue 13). {@code -Dgolden.write=DIR} rewrites the files (only ever from the old code).
 */
class GoldenSummariesTest {
  @Test
  void summariesAreByteIdenticalToThoseRecordedBeforeTheRewrite() throws IOException {
    String writeTo = System.getProperty("golden.write");
    for (GoldenEvents.Case c : GoldenEvents.cases()) {
      List<String> now =
          OfflineStats.compute(
                  c.events(),
                  c.settings(),
                  p -> {
                    throw new AssertionError(p);
                  })
              .stream()
              .map(WindowSummaryCodec::encodeToString)
              .toList();
      if (writeTo != null) {
        Files.write(Path.of(writeTo, c.name() + ".jsonl"), now, StandardCharsets.UTF_8);
        continue;
      }
      List<String> recorded = read(c.name());
      assertTrue(recorded.size() > 5, c.name());
      assertEquals(recorded, now, c.name());
    }
  }

  static List<String> read(String name) throws IOException {
    try (InputStream in =
        GoldenSummariesTest.class.getResourceAsStream("/golden/" + name + ".jsonl")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
  }
}
