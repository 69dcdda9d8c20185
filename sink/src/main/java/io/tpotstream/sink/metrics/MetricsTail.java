package io.tpotstream.sink.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.sink.record.RecentWindows;
import io.tpotstream.sink.record.WindowKey;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads which (series, window) pairs the metrics topic already holds, as the files read their last
 * lines: the last records of each partition, or the whole topic for a new consumer group (which is
 * offered every summary again from the earliest). A record's key is its series and its timestamp
 * its window end; a topic that stamps records at append time is read for its {@code ts} field.
 */
final class MetricsTail {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsTail.class);
  private static final Duration POLL = Duration.ofMillis(200);

  /** How long the read may make no progress before an open transaction is left out. */
  private static final Duration SETTLE = Duration.ofSeconds(10);

  private MetricsTail() {}

  /**
   * Remembers in {@code held} the windows of the last {@code lastPerPartition} offsets of each
   * partition of {@code topic} ({@link Long#MAX_VALUE}: the whole topic), read_committed up to the
   * end the topic had when called. A sink that has just ended committed its last transaction; the
   * markers that make it readable follow within milliseconds. A transaction that stays open for
   * {@link #SETTLE} is another writer's: its records are not counted as held.
   *
   * @param clientProps connection and security settings
   * @param timeout the bound on each call to Kafka
   * @return the records read
   */
  static long read(
      Properties clientProps,
      String topic,
      long lastPerPartition,
      RecentWindows held,
      Duration timeout) {
    Map<TopicPartition, Long> left = new HashMap<>();
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props(clientProps, "read_committed"))) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, timeout).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      Map<TopicPartition, Long> end = writtenEnd(clientProps, partitions, timeout);
      Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions, timeout);
      consumer.assign(partitions);
      for (TopicPartition p : partitions) {
        long from = Math.max(begin.get(p), end.get(p) - Math.min(lastPerPartition, end.get(p)));
        consumer.seek(p, from);
        if (from < end.get(p)) {
          left.put(p, end.get(p));
        }
      }
      long read = 0;
      long progressNs = System.nanoTime();
      while (!left.isEmpty()) {
        var records = consumer.poll(POLL);
        for (ConsumerRecord<String, byte[]> record : records) {
          if (record.key() != null) {
            held.remember(new WindowKey(record.key(), windowEndMs(record)));
          }
        }
        read += records.count();
        if (left.keySet().removeIf(p -> consumer.position(p) >= left.get(p))
            || !records.isEmpty()) {
          progressNs = System.nanoTime();
        } else if (System.nanoTime() - progressNs > SETTLE.toNanos()) {
          LOG.warn(
              "{}: a transaction of another writer is still open on {}; its records are not"
                  + " counted as written",
              topic,
              left.keySet());
          break;
        }
      }
      return read;
    }
  }

  /** The high watermarks: the end of what is written, committed or not. */
  private static Map<TopicPartition, Long> writtenEnd(
      Properties clientProps, List<TopicPartition> partitions, Duration timeout) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props(clientProps, "read_uncommitted"))) {
      return consumer.endOffsets(partitions, timeout);
    }
  }

  private static long windowEndMs(ConsumerRecord<String, byte[]> record) {
    if (record.timestampType() != TimestampType.LOG_APPEND_TIME) {
      return record.timestamp();
    }
    try {
      JsonNode ts = Json.MAPPER.readTree(record.value()).get("ts");
      return ts == null ? record.timestamp() : ts.asLong();
    } catch (IOException e) {
      return record.timestamp();
    }
  }

  private static Properties props(Properties clientProps, String isolation) {
    Properties props = new Properties();
    props.putAll(clientProps);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }
}
