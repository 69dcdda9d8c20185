package io.tpotstream.sink;

import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaTopics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;

/** Client settings and topic checks the sink needs before it starts. */
final class KafkaSetup {
  static final Duration TIMEOUT = Duration.ofSeconds(15);

  private KafkaSetup() {}

  /** The sink's connection: its servers and the user's settings, start-up calls bounded. */
  static KafkaConnection connection(SinkConfig config) {
    return KafkaConnection.of(config.bootstrapServers(), config.kafkaProperties())
        .withTimeout(TIMEOUT);
  }

  /** Bootstrap servers plus the user's extra settings, shared by every client of the sink. */
  static Properties clientProps(SinkConfig config) {
    return connection(config).clientProperties();
  }

  /** Admin settings: as {@link #clientProps}, every call bounded by {@link #TIMEOUT}. */
  static Properties adminProps(SinkConfig config) {
    return connection(config).adminProperties();
  }

  /** Whether {@code topic}'s {@code partitions} partitions hold no record (none was ever kept). */
  static boolean isEmpty(Admin admin, String topic, int partitions) {
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      earliest.put(new TopicPartition(topic, p), OffsetSpec.earliest());
      latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
    }
    try {
      var from = admin.listOffsets(earliest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      var to = admin.listOffsets(latest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      return from.keySet().stream().allMatch(tp -> from.get(tp).offset() >= to.get(tp).offset());
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot list the offsets of " + topic + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while listing the offsets of " + topic, e);
    }
  }

  /**
   * Creates the input topic (one partition, kept forever, as the aggregator creates it) and the
   * metrics topic (as many partitions as the input) when missing.
   *
   * @return the input topic's partition count
   */
  static int ensureTopics(Admin admin, SinkConfig config) {
    KafkaConnection kafka = connection(config);
    // summaries of old windows carry old timestamps: a time-based retention would delete them
    Map<String, String> keepForever = Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1");
    int partitions =
        KafkaTopics.ensure(admin, kafka, config.inputTopic(), 1, keepForever).partitions();
    if (config.metricsTopic() != null) {
      KafkaTopics.ensure(admin, kafka, config.metricsTopic(), partitions, Map.of());
    }
    return partitions;
  }
}
