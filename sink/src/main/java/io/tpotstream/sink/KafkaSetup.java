package io.tpotstream.sink;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Client settings and topic checks the sink needs before it starts. */
final class KafkaSetup {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaSetup.class);
  static final Duration TIMEOUT = Duration.ofSeconds(15);

  private KafkaSetup() {}

  /** Bootstrap servers plus the user's extra settings, shared by every client of the sink. */
  static Properties clientProps(SinkConfig config) {
    Properties props = new Properties();
    props.putAll(config.kafkaProperties());
    props.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    return props;
  }

  /**
   * Creates the input topic (one partition) and the metrics topic (as many partitions as the input)
   * when missing.
   *
   * @return the input topic's partition count
   */
  static int ensureTopics(Admin admin, SinkConfig config) {
    String bootstrap = config.bootstrapServers();
    int partitions =
        partitionCount(admin, config.inputTopic(), bootstrap)
            .orElseGet(() -> create(admin, config.inputTopic(), 1, bootstrap));
    if (config.metricsTopic() != null
        && partitionCount(admin, config.metricsTopic(), bootstrap).isEmpty()) {
      create(admin, config.metricsTopic(), partitions, bootstrap);
    }
    return partitions;
  }

  /** Offsets the group has committed on {@code topic} (empty for a new group). */
  static Map<TopicPartition, OffsetAndMetadata> committedOffsets(
      Admin admin, String groupId, String topic, String bootstrap) {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        get(
            admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(),
            bootstrap,
            "read the offsets of group " + groupId);
    offsets.keySet().removeIf(p -> !p.topic().equals(topic));
    offsets.values().removeIf(o -> o == null);
    return offsets;
  }

  private static Optional<Integer> partitionCount(Admin admin, String topic, String bootstrap) {
    try {
      TopicDescription description =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
              .get(topic);
      return Optional.of(description.partitions().size());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw failure(bootstrap, "describe topic " + topic, e.getCause());
    } catch (TimeoutException e) {
      throw unreachable(bootstrap);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking topic " + topic, e);
    }
  }

  private static int create(Admin admin, String topic, int partitions, String bootstrap) {
    try {
      admin
          .createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
          .all()
          .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      LOG.info("created topic {} with {} partition(s)", topic, partitions);
      return partitions;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return partitionCount(admin, topic, bootstrap).orElse(partitions);
      }
      throw failure(bootstrap, "create topic " + topic, e.getCause());
    } catch (TimeoutException e) {
      throw unreachable(bootstrap);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    }
  }

  private static <T> T get(KafkaFuture<T> future, String bootstrap, String what) {
    try {
      return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw failure(bootstrap, what, e.getCause());
    } catch (TimeoutException e) {
      throw unreachable(bootstrap);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while trying to " + what, e);
    }
  }

  private static IllegalStateException unreachable(String bootstrap) {
    return new IllegalStateException(
        "no answer from Kafka at "
            + bootstrap
            + " within "
            + TIMEOUT.toSeconds()
            + " s: check --bootstrap-servers and that the broker runs");
  }

  private static IllegalStateException failure(String bootstrap, String what, Throwable cause) {
    return new IllegalStateException(
        "cannot " + what + " on Kafka at " + bootstrap + ": " + cause.getMessage(), cause);
  }
}
