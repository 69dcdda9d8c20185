package io.tpotstream.producer.publish;

import io.tpotstream.common.Records;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import java.time.Duration;
import java.util.Properties;

/**
 * Where and how the producer publishes.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param topic the token-events topic (created with {@code partitions} partitions if missing)
 * @param clientProperties extra Kafka client properties (security, tuning); they override ours,
 *     except the serializers and {@code max.block.ms} (the publisher never blocks on Kafka)
 * @param partitions partitions of the topic when the producer has to create it
 * @param setupTimeout how long to wait for Kafka at start before giving up
 * @param queueCapacity entries of the hand-off from the event loops to the publisher thread
 * @param outageBuffer events held while Kafka is unreachable before the run stops
 */
public record KafkaSettings(
    String bootstrapServers,
    String topic,
    Properties clientProperties,
    int partitions,
    Duration setupTimeout,
    int queueCapacity,
    long outageBuffer) {

  public static final int DEFAULT_PARTITIONS = 3;
  public static final int DEFAULT_QUEUE_CAPACITY = 32_768;
  public static final Duration DEFAULT_SETUP_TIMEOUT = Duration.ofSeconds(15);

  /** Defaults: topic {@code tpot.token-events}, 3 partitions if created, 15 s setup timeout. */
  public static KafkaSettings of(String bootstrapServers) {
    return new KafkaSettings(
        bootstrapServers,
        Topics.TOKEN_EVENTS,
        new Properties(),
        DEFAULT_PARTITIONS,
        DEFAULT_SETUP_TIMEOUT,
        DEFAULT_QUEUE_CAPACITY,
        Publisher.DEFAULT_OUTAGE_BUFFER);
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

  /**
   * The connection these settings name: the bootstrap servers and the client properties, start-up
   * calls bounded by the setup timeout.
   */
  public KafkaConnection connection() {
    return KafkaConnection.of(bootstrapServers, clientProperties).withTimeout(setupTimeout);
  }

  public KafkaSettings withTopic(String newTopic) {
    return Records.with(this, "topic", newTopic);
  }

  public KafkaSettings withClientProperties(Properties props) {
    return Records.with(this, "clientProperties", props);
  }

  public KafkaSettings withPartitions(int count) {
    return Records.with(this, "partitions", count);
  }

  public KafkaSettings withSetupTimeout(Duration timeout) {
    return Records.with(this, "setupTimeout", timeout);
  }

  public KafkaSettings withQueueCapacity(int capacity) {
    return Records.with(this, "queueCapacity", capacity);
  }

  /** Events held while Kafka is unreachable; a full outage buffer stops the run. */
  public KafkaSettings withOutageBuffer(long events) {
    return Records.with(this, "outageBuffer", events);
  }
}
