package io.tpotstream.sink.report;

import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Reads a summaries topic from its beginning to its current end, without a consumer group. */
public final class TopicSummaries {
  private static final Logger LOG = LoggerFactory.getLogger(TopicSummaries.class);

  private TopicSummaries() {}

  /**
   * Hands every committed summary of {@code topic} to {@code summaries}, partition by partition in
   * offset order, up to the end offsets seen at the start.
   *
   * @param clientProps connection and security settings (bootstrap servers, SASL, ...)
   * @throws IllegalStateException when the topic is missing or the end is not reached in {@code
   *     timeout}
   */
  public static void read(
      Properties clientProps, String topic, Duration timeout, Consumer<WindowSummary> summaries) {
    Properties props = new Properties();
    props.putAll(clientProps);
    props.remove(ConsumerConfig.GROUP_ID_CONFIG);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    long deadlineNs = System.nanoTime() + timeout.toNanos();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
      if (infos == null || infos.isEmpty()) {
        throw new IllegalStateException("topic " + topic + " does not exist: check --input");
      }
      List<TopicPartition> partitions =
          infos.stream().map(i -> new TopicPartition(topic, i.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
        if (System.nanoTime() > deadlineNs) {
          throw new IllegalStateException(
              "reading " + topic + " took longer than " + timeout.toSeconds() + " s");
        }
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          try {
            summaries.accept(WindowSummaryCodec.decode(record.value()));
          } catch (IllegalArgumentException e) {
            LOG.warn(
                "{}-{} offset {} skipped: {}",
                topic,
                record.partition(),
                record.offset(),
                e.getMessage());
          }
        }
      }
    }
  }
}
