package io.tpotstream.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.app.cli.TestEvents;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code tpot aggregate} catching up a backlog: the progress counts to the input's end offsets at
 * start and says once that it caught up; quiet, it says nothing.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class CatchUpTest {
  private static final int PER_PARTITION = 1_000;

  @Test
  void theBacklogIsCountedToItsEndOffsetsAndCaughtUpOnce(TestKafka kafka) throws Exception {
    String topic = TestKafka.uniqueName("catch-up");
    // the events are from January: the broker's retention check (every 5 min, 7 days) would delete
    // some of them while they are written, and the backlog would start past offset 0
    kafka.createTopic(topic, 3, Map.of("retention.ms", "-1"));
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.producerProps())) {
      for (int i = 0; i < 3 * PER_PARTITION; i++) {
        String request = "r" + i % 30;
        producer.send(
            new ProducerRecord<>(
                topic,
                i % 3,
                request,
                TokenEventCodec.encode(
                    TestEvents.content(
                        1_767_225_600_000L + i, request, Map.of(), i * 1_000L, i / 30))));
      }
    }
    String group = TestKafka.uniqueName("catch-up-app");
    KafkaConnection connection = KafkaConnection.of(kafka.bootstrapServers());
    StringWriter plain = new StringWriter();
    StringWriter quiet = new StringWriter();
    // both start before the aggregator: nothing is committed yet, so the first line is at 0
    CatchUp shown =
        CatchUp.start(
            connection,
            topic,
            group,
            Progress.start(
                "aggregate", Progress.Mode.PLAIN, new PrintWriter(plain), Duration.ofMillis(50)),
            () -> true);
    CatchUp hidden =
        CatchUp.start(
            connection,
            topic,
            group,
            Progress.start("aggregate", Progress.Mode.QUIET, new PrintWriter(quiet)),
            () -> true);
    assertNotNull(shown);
    assertNotNull(hidden);
    assertEquals(3L * PER_PARTITION, shown.total());
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> plain.toString().contains("catching up on " + topic));
    assertTrue(
        plain
            .toString()
            .startsWith("aggregate: catching up on " + topic + " 0/3,000 records  0.0%  "),
        plain.toString());

    AggregatorConfig config =
        AggregatorConfig.defaults(kafka.bootstrapServers())
            .withTopics(topic, topic + "-summaries", topic + "-dead-letter")
            .withApplicationId(group);
    try (Aggregator aggregator = Aggregator.start(config)) {
      await().atMost(Duration.ofMinutes(2)).until(() -> shown.finished() && hidden.finished());
    }
    List<String> lines = plain.toString().lines().toList();
    String last = lines.get(lines.size() - 1);
    assertTrue(
        last.matches(
            "aggregate: caught up on "
                + topic
                + ": 3,000 records read in \\d+\\.\\d s \\([\\d,]+ records/s\\); following new"
                + " events"),
        last);
    assertEquals(1, lines.stream().filter(l -> l.contains("caught up")).count(), plain.toString());
    for (String line : lines.subList(0, lines.size() - 1)) {
      assertTrue(line.contains("/3,000 records"), line);
    }
    assertEquals("", quiet.toString(), "nothing when quiet");
  }
}
