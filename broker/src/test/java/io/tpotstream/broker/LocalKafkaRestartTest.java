package io.tpotstream.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("slow")
class LocalKafkaRestartTest {

  @Test
  void recordsWrittenBeforeARestartAreReadableAfterIt(@TempDir Path dataDir) {
    LocalKafka kafka = LocalKafka.create(0, dataDir).start();
    try {
      produce(kafka, "before", 500);
      kafka.restart();
      produce(kafka, "after", 1);
      List<String> values = consumeAll(kafka, 501);
      assertEquals(501, values.size());
      assertEquals("before-0", values.get(0));
      assertEquals("before-499", values.get(499));
      assertEquals("after-0", values.get(500));
    } finally {
      kafka.stop();
    }
    assertTrue(Files.exists(dataDir.resolve("log").resolve("meta.properties")), "data dir kept");

    // a new broker process on the same data dir (as `tpot broker --data-dir` twice) still has them
    LocalKafka again = LocalKafka.create(0, dataDir).start();
    try {
      assertEquals(501, consumeAll(again, 501).size());
    } finally {
      again.stop();
    }
  }

  @Test
  void aTemporaryDataDirIsRemovedOnStop() {
    LocalKafka kafka = LocalKafka.startTemporary();
    Path dir = kafka.dataDir();
    assertTrue(Files.isDirectory(dir));
    kafka.stop();
    assertFalse(Files.exists(dir));
  }

  private static void produce(LocalKafka kafka, String prefix, int count) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < count; i++) {
        producer.send(new ProducerRecord<>("restart-topic", "k", prefix + "-" + i));
      }
      producer.flush();
    }
  }

  private static List<String> consumeAll(LocalKafka kafka, int expected) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "restart-reader-" + System.nanoTime());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      consumer.subscribe(List.of("restart-topic"));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(300))) {
          values.add(r.value());
        }
      }
    }
    return values;
  }
}
