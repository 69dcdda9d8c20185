package io.tpotstream.bench.recompute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * B1's fresh-process part on a few thousand events: kcat loads them, a fresh plain consumer reads
 * them all, and a fresh {@code tpot aggregate} writes every summary of the independent
 * recomputation, byte for byte.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class FreshAggregateSmokeTest {
  @Test
  void aFreshAggregateProcessWritesTheRecomputedSummariesAndItsRatesArePrinted(
      TestKafka kafka, @TempDir Path dir) {
    Assumptions.assumeTrue(
        Kcat.available(), "kcat is not installed (apt-get install kcat): B1 loads with it");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report = new BenchReport(new PrintStream(bytes, true, StandardCharsets.UTF_8));

    FreshAggregate.Outcome outcome =
        FreshAggregate.measure(
            new BenchEnv(kafka.bootstrapServers(), true, dir, List.of()), report, 4_000);

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(outcome.records() >= 3_500, out);
    assertTrue(outcome.summaries() > 0, out);
    assertTrue(outcome.identical(), out);
    assertEquals(
        1,
        Pattern.compile(
                "tpot aggregate / plain consumer, fresh processes: end to end, steady state +\\d+\\.\\d\\d,"
                    + " \\d+\\.\\d\\d")
            .matcher(out)
            .results()
            .count(),
        out);
    assertTrue(out.contains("identical to the independent recomputation"), out);
    assertTrue(
        Pattern.compile("tpot aggregate / kcat -C: end to end, steady state +\\d+\\.\\d\\d, ")
            .matcher(out)
            .find(),
        out);
  }
}
