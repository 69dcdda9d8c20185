package io.tpotstream.sink;

import static org.awaitility.Awaitility.await;

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

  /**
   * Every record of {@code topic} once no transaction on it is open any more (its last stable
   * offsets reach its high watermarks: commit markers are written after commitTransaction returns).
   */
  public static List<ConsumerRecord<String, byte[]>> readSettled(TestKafka kafka, String topic) {
    try (KafkaConsumer<String, byte[]> committed = new KafkaConsumer<>(props(kafka, true));
        KafkaConsumer<String, byte[]> all = new KafkaConsumer<>(props(kafka, false))) {
      List<TopicPartition> partitions = partitions(committed, topic);
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> committed.endOffsets(partitions).equals(all.endOffsets(partitions)));
    }
    return readCommitted(kafka, topic);
  }

  /** The records of {@code topic} committed so far (up to its last stable offsets). */
  public static List<ConsumerRecord<String, byte[]>> readCommitted(TestKafka kafka, String topic) {
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props(kafka, true))) {
      List<TopicPartition> partitions = partitions(consumer, topic);
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

  private static Properties props(TestKafka kafka, boolean readCommitted) {
    Properties props = kafka.consumerProps("unused");
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    props.put(
        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
        readCommitted ? "read_committed" : "read_uncommitted");
    return props;
  }

  private static List<TopicPartition> partitions(
      KafkaConsumer<String, byte[]> consumer, String topic) {
    return consumer.partitionsFor(topic).stream()
        .map(p -> new TopicPartition(topic, p.partition()))
        .toList();
  }
}
