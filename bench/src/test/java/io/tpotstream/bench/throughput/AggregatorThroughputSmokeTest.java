package io.tpotstream.bench.throughput;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * B1 end to end on a small topic: it runs, prints rates with units, and every summary comes out.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class AggregatorThroughputSmokeTest {
  @Test
  void smallRunPrintsBothRatesAndEverySeriesWindowComesOut(TestKafka kafka, @TempDir Path dir) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BenchReport report = new BenchReport(new PrintStream(bytes, true, StandardCharsets.UTF_8));

    AggregatorThroughput.run(
        new BenchEnv(kafka.bootstrapServers(), true, dir, List.of()), report, 20_000);

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("plain KafkaConsumer (bytes only)"), out);
    assertTrue(
        Pattern.compile("aggregator end to end, exactly_once_v2 \\(default\\) +[\\d,]+ events/s")
            .matcher(out)
            .find(),
        out);
    assertTrue(
        Pattern.compile("aggregator steady state \\(first summary to the last\\) +[\\d,]+ events/s")
            .matcher(out)
            .find(),
        out);
    assertTrue(
        Pattern.compile(
                "aggregator / plain consumer: end to end, steady state +\\d+\\.\\d\\d, \\d+\\.\\d\\d")
            .matcher(out)
            .find(),
        out);
    Matcher summaries =
        Pattern.compile("summaries out +([\\d,]+) \\(([\\d,]+) series-windows").matcher(out);
    assertTrue(summaries.find(), out);
    assertTrue(summaries.group(1).equals(summaries.group(2)), out);
    assertTrue(!summaries.group(1).equals("0"), out);
  }
}
