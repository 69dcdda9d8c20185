package io.tpotstream.producer.publish;

import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import java.time.Duration;
import java.util.Properties;

/**
 * Where and how the producer publishes.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param topic the token-events topic (created with {@code partitions} partitions if missing)
 * @param clientProperties extra Kafka client properties (security, tuning); they override ours
 * @param partitions partitions of the topic when the producer has to create it
 * @param setupTimeout how long to wait for Kafka at start before giving up
 * @param queueCapacity events that may wait for the publisher thread before the run fails
 */
public record KafkaSettings(
    String bootstrapServers,
    String topic,
    Properties clientProperties,
    int partitions,
    Duration setupTimeout,
    int queueCapacity) {

  public static final int DEFAULT_PARTITIONS = 3;
  public static final int DEFAULT_QUEUE_CAPACITY = 200_000;
  public static final Duration DEFAULT_SETUP_TIMEOUT = Duration.ofSeconds(15);

  /** Defaults: topic {@code tpot.token-events}, 3 partitions if created, 15 s setup timeout. */
  public static KafkaSettings of(String bootstrapServers) {
    return new KafkaSettings(
        bootstrapServers,
        Topics.TOKEN_EVENTS,
        new Properties(),
        DEFAULT_PARTITIONS,
        DEFAULT_SETUP_TIMEOUT,
        DEFAULT_QUEUE_CAPACITY);
  }

  /**
   * Defaults against {@code kafka}: its bootstrap servers, its client settings (the user's
   * properties file), its bound on start-up calls.
   */
  public static KafkaSettings of(KafkaConnection kafka) {
    Properties client = new Properties();
    client.putAll(kafka.settings());
    return of(kafka.bootstrapServers())
        .withClientProperties(client)
        .withSetupTimeout(kafka.timeout());
  }

  public KafkaSettings withTopic(String newTopic) {
    return new KafkaSettings(
        bootstrapServers, newTopic, clientProperties, partitions, setupTimeout, queueCapacity);
  }

  public KafkaSettings withClientProperties(Properties props) {
    return new KafkaSettings(
        bootstrapServers, topic, props, partitions, setupTimeout, queueCapacity);
  }

  public KafkaSettings withPartitions(int count) {
    return new KafkaSettings(
        bootstrapServers, topic, clientProperties, count, setupTimeout, queueCapacity);
  }

  public KafkaSettings withSetupTimeout(Duration timeout) {
    return new KafkaSettings(
        bootstrapServers, topic, clientProperties, partitions, timeout, queueCapacity);
  }

  public KafkaSettings withQueueCapacity(int capacity) {
    return new KafkaSettings(
        bootstrapServers, topic, clientProperties, partitions, setupTimeout, capacity);
  }
}
