package io.tpotstream.producer.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The publisher keeps its promise: no event below a watermark it already sent. */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class PublisherTest {
  @Test
  void eventBelowASentWatermarkIsRaisedToItAndCountedLateAtSource(TestKafka kafka) {
    String topic = TestKafka.uniqueName("late");
    AnchoredClock clock = AnchoredClock.start();
    PauseMeter meter = PauseMeter.start();
    Publisher publisher =
        Publisher.open(
            KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(2),
            "run-late",
            "producer-late",
            clock,
            meter);
    long tooOld = clock.nowMs() - 10_000;
    long fresh = clock.nowMs();
    publisher.publish(
        TokenEvent.token(
            tooOld, "run-late", "r-1", "m", Map.of(), 5, 0, 1, TokenKind.CONTENT, "producer-late"));
    publisher.publish(
        TokenEvent.token(
            fresh, "run-late", "r-1", "m", Map.of(), 9, 1, 1, TokenKind.CONTENT, "producer-late"));
    publisher.finish().join();
    meter.close();

    assertEquals(1, publisher.lateAtSource());
    assertEquals(2, publisher.acknowledged());
    List<TopicReader.Rec> records = TopicReader.readUntilFinal(kafka, topic, 2);
    List<TokenEvent> tokens =
        records.stream()
            .map(TopicReader.Rec::event)
            .filter(e -> e.type() == EventType.TOKEN)
            .toList();
    long startWatermark =
        records.stream().filter(r -> r.offset() == 0).findFirst().orElseThrow().event().watermark();
    assertEquals(startWatermark, tokens.get(0).ts(), "raised to the start heartbeat's watermark");
    assertEquals(5L, tokens.get(0).elapsedNs(), "its measurement is untouched");
    assertEquals(fresh, tokens.get(1).ts());
    assertTrue(startWatermark > tooOld);
  }
}
