package io.tpotstream.testkit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The Kafka a test talks to, with small helpers for topics and client properties. Obtained as a
 * test-method or constructor parameter under {@link KafkaExtension}; one broker serves the whole
 * test JVM.
 *
 * @param bootstrapServers the broker's address
 * @param source where the broker came from: {@code env}, {@code testcontainers} or {@code embedded}
 */
public record TestKafka(String bootstrapServers, String source) {
  /** A topic name no other test uses: {@code prefix} plus a random suffix. */
  public static String uniqueName(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Creates {@code name} with {@code partitions} partitions (no error when it exists). */
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /**
   * Creates {@code name} and returns once every partition has a leader: a producer's first sends to
   * a partition whose leader is not yet known can end in sequence errors on a fresh single-node
   * broker, and records are lost (the publisher waits the same way).
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    try (Admin admin = admin()) {
      admin
          .createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all()
          .get();
      awaitLeaders(admin, name);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + name, e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic " + name, e);
    }
  }

  private static void awaitLeaders(Admin admin, String name) throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      try {
        var description = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
        if (description.partitions().stream()
            .allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          return;
        }
      } catch (ExecutionException e) {
        // the topic's metadata has not reached the broker's cache yet: ask again
      }
      Thread.sleep(50);
    }
  }

  public Admin admin() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return Admin.create(p);
  }

  /**
   * The sum of {@code topic}'s end offsets (its records, and transaction markers if any); 0 while
   * the topic does not exist.
   */
  public long endOffsetSum(String topic) {
    try (Admin admin = admin()) {
      if (!admin.listTopics().names().get().contains(topic)) {
        return 0;
      }
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      d.partitions()
          .forEach(p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
      return admin.listOffsets(latest).all().get().values().stream()
          .mapToLong(ListOffsetsResult.ListOffsetsResultInfo::offset)
          .sum();
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot read the end offsets of " + topic, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading the end offsets of " + topic, e);
    }
  }

  /**
   * Producer properties: string keys, byte-array values, acks=all, idempotent, one request in
   * flight.
   */
  public Properties producerProps() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    // one request in flight: on a loaded machine a first request that times out after the broker
    // appended it was retried behind later ones, and the broker refused it as out of sequence
    // (CatchUpTest lost 96 of 3,000 records so)
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
    return p;
  }

  /**
   * Consumer properties: string keys, byte-array values, from the earliest offset, read_committed.
   */
  public Properties consumerProps(String groupId) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    return p;
  }

  /**
   * The values of {@code topic} read from its start (read_committed, a group of its own) until
   * {@code done} holds for what was read, or throws after {@code atMost}: a test's wait for output,
   * polling, never sleeping.
   */
  public List<String> readUntil(
      String topic, java.time.Duration atMost, java.util.function.Predicate<List<String>> done) {
    List<String> values = new java.util.ArrayList<>();
    long deadline = System.nanoTime() + atMost.toNanos();
    try (org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(
            consumerProps(uniqueName("reader")))) {
      consumer.subscribe(List.of(topic));
      while (!done.test(values)) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError(
              "after " + atMost + ", " + values.size() + " records of " + topic + " read");
        }
        consumer
            .poll(java.time.Duration.ofMillis(200))
            .forEach(
                r ->
                    values.add(
                        r.value() == null
                            ? null
                            : new String(r.value(), java.nio.charset.StandardCharsets.UTF_8)));
      }
    }
    return values;
  }
}
