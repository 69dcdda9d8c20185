package io.tpotstream.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
class TransactionsTest {

  @Test
  void readCommittedSeesCommittedRecordsAndNeverAbortedOnes(TestKafka kafka) {
    String topic = TestKafka.uniqueName("tx");
    kafka.createTopic(topic, 1);
    Properties props = kafka.producerProps();
    props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topic + "-tx");
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 10; i++) {
        producer.send(
            new ProducerRecord<>(topic, "k", ("committed-" + i).getBytes(StandardCharsets.UTF_8)));
      }
      producer.commitTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "k", "aborted".getBytes(StandardCharsets.UTF_8)));
      producer.flush();
      producer.abortTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "k", "last".getBytes(StandardCharsets.UTF_8)));
      producer.commitTransaction();
    }

    List<String> seen = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(kafka.consumerProps(topic + "-reader"))) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (seen.size() < 11 && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(300))) {
          seen.add(new String(r.value(), StandardCharsets.UTF_8));
        }
      }
      for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(300))) {
        seen.add(new String(r.value(), StandardCharsets.UTF_8));
      }
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      expected.add("committed-" + i);
    }
    expected.add("last");
    assertEquals(expected, seen);
  }
}
