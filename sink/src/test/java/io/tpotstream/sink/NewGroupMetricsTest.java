package io.tpotstream.sink;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink with a new {@code --group-id} is offered every summary again, from the earliest: the
 * metrics topic gets only the (series, window) pairs it does not hold yet, as the files do.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class NewGroupMetricsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  /** Windows {@code from} to {@code to - 1} of three series. */
  private static List<WindowSummary> windows(int from, int to) {
    List<WindowSummary> summaries = new ArrayList<>();
    for (int w = from; w < to; w++) {
      for (String model : List.of("model-a", "model-b", "model-c")) {
        summaries.add(TestWindows.summary(model, Map.of(), w));
      }
    }
    return summaries;
  }

  private SinkConfig.Builder sink(TestKafka kafka, String input, String metricsTopic) {
    return SinkConfig.builder(kafka.bootstrapServers())
        .inputTopic(input)
        .csv(dir.resolve("out/summaries.csv"))
        .metricsTopic(metricsTopic)
        .noPrometheus();
  }

  private static void runUntilWritten(SinkConfig config, int summaries) throws Exception {
    try (Sink sink = Sink.start(config)) {
      await().atMost(WAIT).until(() -> sink.summariesWritten() == summaries);
    }
  }

  private static List<String> seriesAndWindowEnds(List<ConsumerRecord<String, byte[]>> records) {
    return records.stream().map(r -> r.key() + "@" + r.timestamp()).sorted().toList();
  }

  private static List<String> seriesAndWindowEndsOf(List<WindowSummary> summaries) {
    return summaries.stream().map(s -> s.series() + "@" + s.windowEndMs()).sorted().toList();
  }

  @Test
  void aNewGroupPublishesOnlyTheWindowsTheMetricsTopicDoesNotHold(TestKafka kafka)
      throws Exception {
    String input = TestKafka.uniqueName("summaries");
    String metrics = TestKafka.uniqueName("metrics");
    kafka.createTopic(input, 2);
    List<WindowSummary> first = windows(0, 4);
    SinkConfig.Builder config = sink(kafka, input, metrics);

    SinkKafkaTest.produce(kafka, input, first);
    runUntilWritten(config.groupId(TestKafka.uniqueName("sink")).build(), 12);
    assertEquals(12, TopicReader.readSettled(kafka, metrics).size());

    List<WindowSummary> all = new ArrayList<>(first);
    all.addAll(windows(4, 6));
    SinkKafkaTest.produce(kafka, input, all.subList(12, 18));
    runUntilWritten(config.groupId(TestKafka.uniqueName("other")).build(), 18);

    List<ConsumerRecord<String, byte[]>> records = TopicReader.readSettled(kafka, metrics);
    assertEquals(18, records.size(), "12 held already, 6 new");
    assertEquals(seriesAndWindowEndsOf(all), seriesAndWindowEnds(records));
    assertEquals(1 + 18, Files.readAllLines(dir.resolve("out/summaries.csv")).size());
  }

  @Test
  void aNewGroupWritingAnotherMetricsTopicGivesItEverySummary(TestKafka kafka) throws Exception {
    String input = TestKafka.uniqueName("summaries");
    String metrics = TestKafka.uniqueName("metrics");
    String otherMetrics = TestKafka.uniqueName("metrics-other");
    kafka.createTopic(input, 1);
    List<WindowSummary> all = windows(0, 3);
    SinkKafkaTest.produce(kafka, input, all);

    runUntilWritten(sink(kafka, input, metrics).groupId(TestKafka.uniqueName("sink")).build(), 9);
    runUntilWritten(
        sink(kafka, input, otherMetrics).groupId(TestKafka.uniqueName("other")).build(), 9);

    assertEquals(9, TopicReader.readSettled(kafka, metrics).size());
    List<ConsumerRecord<String, byte[]>> records = TopicReader.readSettled(kafka, otherMetrics);
    assertEquals(seriesAndWindowEndsOf(all), seriesAndWindowEnds(records));
    assertEquals(
        1 + 9, Files.readAllLines(dir.resolve("out/summaries.csv")).size(), "no row twice");
  }
}
