package io.tpotstream.sink;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.file.Csv;
import io.tpotstream.sink.file.FileInUseException;
import io.tpotstream.sink.record.FlatRecord;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.LogCapture;
import io.tpotstream.testkit.PromText;
import io.tpotstream.testkit.TestKafka;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(KafkaExtension.class)
@Tag("slow")
class SinkKafkaTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  static void produce(TestKafka kafka, String topic, List<WindowSummary> summaries) {
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      for (WindowSummary s : summaries) {
        producer.send(new ProducerRecord<>(topic, s.series(), WindowSummaryCodec.encode(s)));
      }
    }
  }

  /** Two labelled series over four windows, then a window without any sample. */
  private static List<WindowSummary> summaries() {
    List<WindowSummary> summaries = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      summaries.add(TestWindows.summary("model-a", Map.of("concurrency", "5"), w));
      summaries.add(TestWindows.summary("model-b", Map.of("concurrency", "20"), w));
    }
    WindowStats failedOnly = new WindowStats();
    failedOnly.started(2);
    failedOnly.failed("http_401", 2);
    summaries.add(TestWindows.of("model-b", Map.of("concurrency", "20"), 4, failedOnly));
    return summaries;
  }

  @Test
  void aSecondSinkOnTheSameFilesFailsAtOnceAndTheFirstWritesEveryRow(TestKafka kafka)
      throws Exception {
    String input = TestKafka.uniqueName("summaries");
    kafka.createTopic(input, 2);
    Path csv = dir.resolve("out/summaries.csv");
    SinkConfig.Builder config =
        SinkConfig.builder(kafka.bootstrapServers())
            .inputTopic(input)
            .csv(csv)
            .metricsTopic(null)
            .noPrometheus();
    List<WindowSummary> summaries = summaries();

    try (Sink first = Sink.start(config.groupId(TestKafka.uniqueName("sink")).build())) {
      SinkConfig second = config.groupId(TestKafka.uniqueName("other")).build();
      FileInUseException e = assertThrows(FileInUseException.class, () -> Sink.start(second));
      assertTrue(
          e.getMessage()
              .startsWith(
                  csv
                      + " is being written by another writer (pid "
                      + ProcessHandle.current().pid()
                      + " on host "
                      + java.net.InetAddress.getLocalHost().getHostName()
                      + ", since "),
          e.getMessage());
      produce(kafka, input, summaries);
      await().atMost(WAIT).until(() -> first.summariesWritten() == summaries.size());
    }

    List<String> labels = List.of("concurrency");
    List<String> lines = Files.readAllLines(csv);
    assertEquals(String.join(",", FlatRecord.columns(labels)), lines.get(0));
    assertEquals(
        summaries.stream().map(s -> Csv.line(FlatRecord.of(s).cells(labels))).sorted().toList(),
        lines.subList(1, lines.size()).stream().sorted().toList());
  }

  @Test
  void summariesInGiveExactCsvRowsMetricsRecordsAndPrometheusValues(TestKafka kafka)
      throws Exception {
    String input = TestKafka.uniqueName("summaries");
    String metricsTopic = TestKafka.uniqueName("metrics");
    kafka.createTopic(input, 2);
    List<WindowSummary> summaries = summaries();
    produce(kafka, input, summaries);
    Path csv = dir.resolve("out/summaries.csv");
    SinkConfig config =
        SinkConfig.builder(kafka.bootstrapServers())
            .inputTopic(input)
            .groupId(TestKafka.uniqueName("sink"))
            .csv(csv)
            .metricsTopic(metricsTopic)
            .prometheus("127.0.0.1", 0)
            .report(dir.resolve("report"), false, Duration.ZERO)
            .build();

    try (Sink sink = Sink.start(config)) {
      await().atMost(WAIT).until(() -> sink.summariesWritten() == summaries.size());
      Path html = dir.resolve("report/report.html");
      await()
          .atMost(WAIT)
          .until(
              () ->
                  Files.exists(html)
                      && Files.readString(html).contains(">model-a{concurrency=5}</td>")
                      && Files.readString(html).contains(">model-b{concurrency=20}</td>"));

      List<String> labels = List.of("concurrency");
      List<String> lines = Files.readAllLines(csv);
      assertEquals(String.join(",", FlatRecord.columns(labels)), lines.get(0));
      assertEquals(
          summaries.stream()
              .map(s -> String.join(",", FlatRecord.of(s).cells(labels)))
              .sorted()
              .toList(),
          lines.subList(1, lines.size()).stream().sorted().toList());
      assertEquals(
          "2026-01-01T00:00:40Z,2026-01-01T00:00:50Z,1767225650000,model-b{concurrency=20},"
              + "model-b,20,0"
              + ",".repeat(20)
              + "2,0,2,1.0000,0,0.000,0,,,0,"
              + ",,,,," // no client report: no touched gaps either
              + ",0"
              + ",,," // slo_met, slo_missed, goodput: empty without an SLO
              + ",,,," // no request reported a prefix cache: no hit rate, not 0
              + ",".repeat(40), // no engine was scraped: its 40 columns empty
          lines.stream().filter(l -> l.startsWith("2026-01-01T00:00:40Z")).findFirst().get());
      assertTrue(Files.readAllLines(dir.resolve("out/summaries.jsonl")).size() == summaries.size());

      List<ConsumerRecord<String, byte[]>> records = TopicReader.readSettled(kafka, metricsTopic);
      assertEquals(summaries.size(), records.size());
      Map<String, byte[]> bySeriesAndTs = new HashMap<>();
      for (ConsumerRecord<String, byte[]> record : records) {
        String json = new String(record.value(), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"series\":\"" + record.key() + "\""), json);
        bySeriesAndTs.put(record.key() + "@" + record.timestamp(), record.value());
      }
      for (WindowSummary s : summaries) {
        assertArrayEquals(
            FlatRecord.of(s).toJson(),
            bySeriesAndTs.get(s.series() + "@" + s.windowEndMs()),
            s.series() + " " + s.windowEnd());
      }

      PromText metrics = PromText.parse(scrape(sink.prometheusPort().getAsInt()));
      Map<String, String> a = Map.of("model", "model-a", "concurrency", "5");
      Map<String, String> b = Map.of("model", "model-b", "concurrency", "20");
      WindowSummary latestA = summaries.get(6);
      assertEquals(
          latestA.tpot().p99Ms().movePointLeft(3).doubleValue(),
          metrics.value("tpot_window_tpot_seconds", with(a, "percentile", "99")));
      assertTrue(
          Double.isNaN(metrics.value("tpot_window_tpot_max_seconds", b)),
          "model-b's latest window had no TPOT sample");
      // cumulative over the windows read: 4 windows of 200 gaps, one http_429 in each
      assertEquals(800.0, metrics.value("tpot_seconds_count", a));
      assertEquals(800.0, metrics.value("tpot_seconds_bucket", with(a, "le", "+Inf")));
      assertEquals(4.0, metrics.value("tpot_errors_total", with(b, "error_class", "http_429")));
      assertEquals(2.0, metrics.value("tpot_errors_total", with(b, "error_class", "http_401")));
      assertEquals(22.0, metrics.value("tpot_requests_total", with(b, "outcome", "started")));
      assertEquals(5.0, metrics.value("tpot_windows_total", b));
    }
  }

  private static Map<String, String> with(Map<String, String> labels, String name, String value) {
    Map<String, String> all = new HashMap<>(labels);
    all.put(name, value);
    return all;
  }

  @Test
  void aRecordThatIsNotASummaryIsSkippedAndTheOthersWritten(TestKafka kafka) throws IOException {
    String input = TestKafka.uniqueName("summaries");
    String metricsTopic = TestKafka.uniqueName("metrics");
    kafka.createTopic(input, 1);
    WindowSummary a0 = TestWindows.summary("model-a", Map.of(), 0);
    WindowSummary a1 = TestWindows.summary("model-a", Map.of(), 1);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      producer.send(new ProducerRecord<>(input, "model-a", WindowSummaryCodec.encode(a0)));
      producer.send(
          new ProducerRecord<>(input, "model-a", "{not json".getBytes(StandardCharsets.UTF_8)));
      producer.send(new ProducerRecord<>(input, "model-a", WindowSummaryCodec.encode(a1)));
    }
    Path csv = dir.resolve("s.csv");
    SinkConfig config = csvSink(kafka, input, csv, metricsTopic);

    try (Sink sink = Sink.start(config)) {
      await().atMost(WAIT).until(() -> sink.latestWindowEndMs() == a1.windowEndMs());
      assertEquals(2, sink.summariesWritten());
    }

    assertEquals(3, Files.readAllLines(csv).size());
    assertEquals(2, TopicReader.readSettled(kafka, metricsTopic).size());
  }

  @Test
  void aRestartedSinkOfTheSameGroupAppendsOnlyNewWindows(TestKafka kafka) throws Exception {
    String input = TestKafka.uniqueName("summaries");
    kafka.createTopic(input, 1);
    Path csv = dir.resolve("s.csv");
    SinkConfig config = csvSink(kafka, input, csv, null);
    List<WindowSummary> first = List.of(TestWindows.summary("m", Map.of(), 0));
    List<WindowSummary> second =
        List.of(TestWindows.summary("m", Map.of(), 1), TestWindows.summary("m", Map.of(), 2));

    produce(kafka, input, first);
    try (Sink sink = Sink.start(config)) {
      assertTrue(sink.awaitWindowEnd(first.get(0).windowEndMs(), WAIT));
    }
    produce(kafka, input, second);
    try (Sink sink = Sink.start(config)) {
      assertTrue(sink.awaitWindowEnd(second.get(1).windowEndMs(), WAIT));
      assertEquals(2, sink.summariesWritten(), "the first window was committed before");
    }

    List<String> lines = Files.readAllLines(csv);
    assertEquals(4, lines.size());
    assertEquals(
        List.of("1767225610000", "1767225620000", "1767225630000"),
        lines.subList(1, 4).stream().map(l -> l.split(",")[2]).toList());
  }

  @Test
  void aNewGroupOnANewTopicIsNotWarnedAboutAndAGroupPastTheBeginningIs(TestKafka kafka)
      throws Exception {
    String input = TestKafka.uniqueName("summaries");
    kafka.createTopic(input, 1);
    String group = TestKafka.uniqueName("sink");
    Path first = dir.resolve("first.csv");
    WindowSummary w0 = TestWindows.summary("m", Map.of(), 0);
    try (LogCapture logs = LogCapture.begin()) {
      // as tpot run starts its sink: a group that committed nothing, on a topic with nothing yet
      try (Sink sink = Sink.start(csvSink(kafka, input, first, null, group))) {
        produce(kafka, input, List.of(w0));
        assertTrue(sink.awaitWindowEnd(w0.windowEndMs(), WAIT));
      }
      // the same group into a new file: the summary it committed is not offered again
      Path second = dir.resolve("second.csv");
      try (Sink sink = Sink.start(csvSink(kafka, input, second, null, group))) {
        assertEquals(0, sink.summariesWritten());
      }

      List<String> warnings =
          logs.lines().stream().filter(l -> l.contains("is new but group")).toList();
      assertEquals(
          List.of(
              "io.tpotstream.sink.Sink "
                  + second
                  + " is new but group "
                  + group
                  + " starts "
                  + input
                  + " past its beginning (partition=offset {0=1}): it gets only the summaries"
                  + " after that; use a new --group-id to write every summary"),
          warnings);
    }
  }

  @Test
  void aWindowClosedBeforeItsEndGetsAMetricsRecordStampedNoLaterThanItsSummary(TestKafka kafka) {
    String input = TestKafka.uniqueName("summaries");
    String metricsTopic = TestKafka.uniqueName("metrics");
    kafka.createTopic(input, 1);
    // tpot run closes its last window when its producer ends, before the window's end
    long summaryWrittenMs = System.currentTimeMillis() - 1_000;
    long futureEndMs = (summaryWrittenMs / 10_000 + 60) * 10_000;
    WindowSummary early =
        TestWindows.stats("m", Map.of(), 0)
            .toSummary("m", "m", Map.of(), futureEndMs - 10_000, futureEndMs);
    WindowSummary past = TestWindows.summary("m", Map.of(), 0);
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      producer.send(
          new ProducerRecord<>(
              input, null, summaryWrittenMs, "m", WindowSummaryCodec.encode(past)));
      producer.send(
          new ProducerRecord<>(
              input, null, summaryWrittenMs, "m", WindowSummaryCodec.encode(early)));
    }

    try (Sink sink = Sink.start(csvSink(kafka, input, dir.resolve("s.csv"), metricsTopic))) {
      await().atMost(WAIT).until(() -> sink.summariesWritten() == 2);
    }

    List<ConsumerRecord<String, byte[]>> records = TopicReader.readSettled(kafka, metricsTopic);
    assertEquals(
        List.of(past.windowEndMs(), summaryWrittenMs),
        records.stream().map(ConsumerRecord::timestamp).toList());
    assertArrayEquals(FlatRecord.of(early).toJson(), records.get(1).value(), "ts: the window end");
  }

  static String scrape(int port) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** A sink of a fresh group from {@code input} to {@code csv} and {@code metricsTopic}. */
  private static SinkConfig csvSink(TestKafka kafka, String input, Path csv, String metricsTopic) {
    return csvSink(kafka, input, csv, metricsTopic, TestKafka.uniqueName("sink"));
  }

  private static SinkConfig csvSink(
      TestKafka kafka, String input, Path csv, String metricsTopic, String group) {
    return SinkConfig.builder(kafka.bootstrapServers())
        .inputTopic(input)
        .groupId(group)
        .csv(csv)
        .metricsTopic(metricsTopic)
        .noPrometheus()
        .build();
  }
}
