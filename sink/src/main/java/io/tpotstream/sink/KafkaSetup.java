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
    Map<TopicPartition, Long> from = offsets(admin, topic, partitions, OffsetSpec.earliest());
    Map<TopicPartition, Long> to = offsets(admin, topic, partitions, OffsetSpec.latest());
    return from.keySet().stream().allMatch(tp -> from.get(tp) >= to.get(tp));
  }

  /**
   * The offset {@code spec} names in each of {@code topic}'s {@code partitions} partitions (its
   * beginning: {@link OffsetSpec#earliest()}; its end: {@link OffsetSpec#latest()}).
   */
  static Map<TopicPartition, Long> offsets(
      Admin admin, String topic, int partitions, OffsetSpec spec) {
    Map<TopicPartition, OffsetSpec> asked = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      asked.put(new TopicPartition(topic, p), spec);
    }
    try {
      Map<TopicPartition, Long> offsets = new HashMap<>();
      admin
          .listOffsets(asked)
          .all()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .forEach((tp, info) -> offsets.put(tp, info.offset()));
      return offsets;
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
