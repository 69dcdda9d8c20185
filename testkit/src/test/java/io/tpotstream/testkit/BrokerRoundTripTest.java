package io.tpotstream.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventCodec;
import io.tpotstream.common.event.TokenKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(KafkaExtension.class)
@Tag("slow")
class BrokerRoundTripTest {
  private static final int EVENTS = 100_000;

  @Test
  void hundredThousandTokenEventsComeBackExactlyAndEqual(TestKafka kafka) {
    String topic = TestKafka.uniqueName("roundtrip");
    kafka.createTopic(topic, 3);
    List<TokenEvent> sent = new ArrayList<>(EVENTS);
    Properties producerProps = kafka.producerProps();
    producerProps.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    producerProps.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(producerProps)) {
      for (int i = 0; i < EVENTS; i++) {
        String requestId = "req-" + (i / 100);
        TokenEvent event =
            TokenEvent.token(
                1_700_000_000_000L + i,
                "run-rt",
                requestId,
                "model-" + (i % 3),
                Map.of("concurrency", "10"),
                1_000L * i,
                i % 100,
                1,
                TokenKind.CONTENT,
                "p-rt");
        sent.add(event);
        producer.send(
            new ProducerRecord<>(
                topic, null, event.ts(), requestId, TokenEventCodec.encode(event)));
      }
      producer.flush();
    }

    List<TokenEvent> received = new ArrayList<>(EVENTS);
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(topic + "-reader"))) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (received.size() < EVENTS && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          TokenEvent event = TokenEventCodec.decode(record.value());
          assertEquals(event.requestId(), record.key());
          assertEquals(event.ts(), record.timestamp());
          received.add(event);
        }
      }
      // nothing beyond the 100,000
      assertEquals(0, consumer.poll(Duration.ofMillis(300)).count());
    }

    assertEquals(EVENTS, received.size());
    received.sort((a, b) -> Long.compare(a.ts(), b.ts()));
    assertEquals(sent, received);
  }
}
