package io.tpotstream.sink;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.file.PositionsFile;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sink whose group's offsets Kafka deleted (a member-less group, idle for longer than {@code
 * offsets.retention.minutes}) resumes after what its files hold: every window reaches {@code
 * tpot.metrics} and the CSV once.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class SinkOffsetsExpiryTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;

  private static List<WindowSummary> windows(int from, int to) {
    List<WindowSummary> summaries = new ArrayList<>();
    for (int w = from; w < to; w++) {
      summaries.add(TestWindows.summary("model-a", Map.of(), w));
      summaries.add(TestWindows.summary("model-b", Map.of(), w));
    }
    return summaries;
  }

  @Test
  void aSinkWhoseGroupOffsetsExpiredSendsEachWindowToTheMetricsTopicOnce(TestKafka kafka)
      throws Exception {
    String input = TestKafka.uniqueName("summaries");
    String metricsTopic = TestKafka.uniqueName("metrics");
    String group = TestKafka.uniqueName("sink");
    kafka.createTopic(input, 2);
    Path csv = dir.resolve("out/summaries.csv");
    SinkConfig config =
        SinkConfig.builder(kafka.bootstrapServers())
            .inputTopic(input)
            .groupId(group)
            .csv(csv)
            .metricsTopic(metricsTopic)
            .noPrometheus()
            .build();
    List<WindowSummary> before = windows(0, 4);
    SinkKafkaTest.produce(kafka, input, before);
    try (Sink sink = Sink.start(config)) {
      await().atMost(WAIT).until(() -> sink.summariesWritten() == before.size());
    }
    assertTrue(Files.exists(PositionsFile.beside(csv)));

    // what the broker does offsets.retention.minutes after the last commit of a group without
    // members (the sink is assigned its partitions, never a member)
    try (Admin admin = kafka.admin()) {
      admin.deleteConsumerGroups(List.of(group)).all().get();
      assertTrue(
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().isEmpty());
    }
    List<WindowSummary> after = windows(4, 5);
    SinkKafkaTest.produce(kafka, input, after);

    try (Sink sink = Sink.start(config)) {
      long lastEnd = after.get(after.size() - 1).windowEndMs();
      await().atMost(WAIT).until(() -> sink.latestWindowEndMs() == lastEnd);
      assertEquals(after.size(), sink.summariesWritten(), "nothing read again");
    }

    List<ConsumerRecord<String, byte[]>> records = TopicReader.readSettled(kafka, metricsTopic);
    Set<String> windows = new HashSet<>();
    for (ConsumerRecord<String, byte[]> r : records) {
      assertTrue(
          windows.add(r.key() + "@" + r.timestamp()), "twice: " + r.key() + "@" + r.timestamp());
    }
    assertEquals(before.size() + after.size(), records.size());
    assertEquals(1 + before.size() + after.size(), Files.readAllLines(csv).size());
  }
}
