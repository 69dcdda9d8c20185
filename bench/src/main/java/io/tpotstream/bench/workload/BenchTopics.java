package io.tpotstream.bench.workload;

import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaTopics;
import io.tpotstream.common.kafka.PlainReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;

/** Topics and clients of the benchmarks: fresh names, kept forever, read from the start. */
public final class BenchTopics {
  private BenchTopics() {}

  /** A name no earlier run used: {@code prefix-<random hex>}. */
  public static String unique(String prefix) {
    return prefix + "-" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 16);
  }

  /** Creates {@code topic} with {@code partitions} partitions and no time-based retention. */
  public static void create(String bootstrap, String topic, int partitions) {
    KafkaConnection kafka = KafkaConnection.of(bootstrap).withTimeout(Duration.ofSeconds(30));
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      KafkaTopics.ensure(
          admin, kafka, topic, partitions, Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"));
    }
  }

  /** Admin settings for the benchmarks' broker (the one Kafka client settings rule). */
  public static Properties adminProps(String bootstrap) {
    return KafkaConnection.of(bootstrap).adminProperties();
  }

  /** A plain byte consumer (no group), read_committed, as the aggregator reads. */
  public static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
    Properties p = PlainReader.settings(KafkaConnection.of(bootstrap).clientProperties());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(p);
  }

  /** Assigns every partition of {@code topic} from its start; returns the partitions. */
  public static List<TopicPartition> assignFromStart(
      KafkaConsumer<byte[], byte[]> consumer, String topic) {
    List<TopicPartition> parts =
        consumer.partitionsFor(topic).stream()
            .map(info -> new TopicPartition(topic, info.partition()))
            .toList();
    consumer.assign(parts);
    consumer.seekToBeginning(parts);
    return parts;
  }
}
