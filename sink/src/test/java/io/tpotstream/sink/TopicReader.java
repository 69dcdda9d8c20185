package io.tpotstream.sink;

import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Reads every committed record of a topic, from its beginning to its current end. */
public final class TopicReader {
  private TopicReader() {}

  public static List<ConsumerRecord<String, byte[]>> readCommitted(TestKafka kafka, String topic) {
    Properties props = kafka.consumerProps("unused");
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read " + topic + " to its end in 30 s");
        }
        consumer.poll(Duration.ofMillis(100)).forEach(records::add);
      }
    }
    return records;
  }
}
