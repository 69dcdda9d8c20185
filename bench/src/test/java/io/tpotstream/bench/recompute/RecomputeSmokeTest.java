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
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * B5 end to end on a few thousand events: kcat loads and reads them, and tpot's export, stats and
 * replay (as processes) keep every record and recompute the reference summaries exactly.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class RecomputeSmokeTest {
  @Test
  void exportStatsAndReplayKeepEveryRecordAndTheSummaries(TestKafka kafka, @TempDir Path dir) {
    Assumptions.assumeTrue(
        Kcat.available(), "kcat is not installed (apt-get install kcat): B5 compares tpot with it");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report = new BenchReport(new PrintStream(bytes, true, StandardCharsets.UTF_8));

    Recompute.Outcome outcome =
        Recompute.run(
            new BenchEnv(kafka.bootstrapServers(), true, dir, List.of()),
            report,
            4_000,
            List.of(".jsonl.gz"));

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(outcome.records() >= 3_500, out);
    assertEquals(Map.of(".jsonl.gz", outcome.records()), outcome.exported(), out);
    assertEquals(Map.of(".jsonl.gz", outcome.records()), outcome.replayed(), out);
    assertEquals(Map.of(".jsonl.gz", true), outcome.statsEqual(), out);
    assertTrue(outcome.summaries() > 0, out);
    assertTrue(out.contains("tpot replay <- .jsonl.gz"), out);
  }
}
