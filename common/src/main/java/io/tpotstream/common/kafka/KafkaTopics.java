package io.tpotstream.common.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place tpot creates topics: a missing topic is created with the broker's default
 * replication; one that cannot be created (no CREATE ACL, too few brokers for the default
 * replication, a creation policy) ends in a {@link KafkaAccessException} that says how to create it
 * by hand. Every call is bounded by the connection's timeout.
 */
public final class KafkaTopics {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTopics.class);

  private KafkaTopics() {}

  /** The partition count of {@code topic}, or empty when it does not exist. */
  public static Optional<Integer> partitions(Admin admin, KafkaConnection c, String topic) {
    try {
      TopicDescription d = describe(admin, c, topic);
      return Optional.of(d.partitions().size());
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return Optional.empty();
      }
      throw KafkaFailures.explain(
          e.getCause(),
          c,
          KafkaNeeds.none().topic(topic, AclOperation.DESCRIBE),
          "describe topic " + topic);
    } catch (TimeoutException e) {
      throw KafkaFailures.noAnswer(c, "describe topic " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaAccessException("interrupted while describing topic " + topic, e);
    }
  }

  /**
   * Creates {@code topic} with {@code partitions} partitions and {@code configs} when it is
   * missing.
   *
   * @return the partition count it has, and whether this call created it
   */
  public static Ensured ensure(
      Admin admin, KafkaConnection c, String topic, int partitions, Map<String, String> configs) {
    Optional<Integer> existing = partitions(admin, c, topic);
    if (existing.isPresent()) {
      return new Ensured(existing.get(), false);
    }
    try {
      admin
          .createTopics(
              List.of(
                  new NewTopic(topic, Optional.of(partitions), Optional.empty()).configs(configs)))
          .all()
          .get(c.timeout().toMillis(), TimeUnit.MILLISECONDS);
      awaitLeaders(admin, c, topic, partitions);
      LOG.info(
          "created topic {} with {} partition(s) (replication: the broker's default)",
          topic,
          partitions);
      return new Ensured(partitions, true);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return new Ensured(partitions(admin, c, topic).orElse(partitions), false);
      }
      throw cannotCreate(c, topic, partitions, configs, e.getCause());
    } catch (TimeoutException e) {
      throw KafkaFailures.noAnswer(c, "create topic " + topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaAccessException("interrupted while creating topic " + topic, e);
    }
  }

  /**
   * Waits until every partition of a topic just created has a leader that answers for it, at most
   * the connection's timeout. A leader named in the metadata may not have opened the partition yet,
   * and an idempotent producer whose first batch meets "not the leader" there while a later one is
   * appended retries that batch out of order (OUT_OF_ORDER_SEQUENCE_NUMBER) until its delivery
   * timeout, then drops it (KAFKA-15591): so each leader is asked for the partition's end offset,
   * which it answers only once the partition is open.
   */
  private static void awaitLeaders(Admin admin, KafkaConnection c, String topic, int partitions)
      throws InterruptedException {
    long deadline = System.nanoTime() + c.timeout().toNanos();
    List<TopicPartition> all = partitionsOf(topic, partitions);
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription d = describe(admin, c, topic);
        if (d.partitions().size() == partitions
            && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          offsets(admin, all, OffsetSpec.latest(), Duration.ofNanos(deadline - System.nanoTime()));
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        // not described or not open yet: ask again
      }
      Thread.sleep(20);
    }
    LOG.warn("topic {} was created but not every partition has a leader that answers yet", topic);
  }

  /** One describe call, bounded by the connection's timeout. */
  private static TopicDescription describe(Admin admin, KafkaConnection c, String topic)
      throws ExecutionException, TimeoutException, InterruptedException {
    return admin
        .describeTopics(List.of(topic))
        .allTopicNames()
        .get(c.timeout().toMillis(), TimeUnit.MILLISECONDS)
        .get(topic);
  }

  /** A topic's partition count and whether it was just created. */
  public record Ensured(int partitions, boolean created) {}

  private static KafkaAccessException cannotCreate(
      KafkaConnection c,
      String topic,
      int partitions,
      Map<String, String> configs,
      Throwable cause) {
    if (cause instanceof AuthorizationException) {
      KafkaAccessException denied =
          KafkaFailures.explain(
              cause,
              c,
              KafkaNeeds.none().topic(topic, AclOperation.CREATE),
              "create topic " + topic);
      return new KafkaAccessException(
          "topic "
              + topic
              + " does not exist and cannot be created: "
              + denied.getMessage()
              + "; or let an administrator create it: "
              + createCommand(c, topic, partitions, configs),
          cause);
    }
    return new KafkaAccessException(
        "cannot create topic "
            + topic
            + " ("
            + partitions
            + " partitions) at "
            + c.bootstrapServers()
            + ": Kafka said "
            + KafkaFailures.said(cause)
            + ". Create it yourself ("
            + createCommand(c, topic, partitions, configs)
            + "), or check the broker's default.replication.factor and topic creation policy",
        cause);
  }

  private static String createCommand(
      KafkaConnection c, String topic, int partitions, Map<String, String> configs) {
    StringBuilder line =
        new StringBuilder("kafka-topics.sh --bootstrap-server ")
            .append(c.bootstrapServers())
            .append(" --create --topic ")
            .append(topic)
            .append(" --partitions ")
            .append(partitions);
    configs.forEach((k, v) -> line.append(" --config ").append(k).append('=').append(v));
    return line.toString();
  }

  /**
   * The committed-read offsets {@code spec} gives for {@code partitions} (earliest, the last stable
   * offset for latest).
   */
  public static Map<TopicPartition, Long> offsets(
      Admin admin, List<TopicPartition> partitions, OffsetSpec spec, Duration timeout)
      throws ExecutionException, TimeoutException, InterruptedException {
    Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> info =
        admin
            .listOffsets(
                partitions.stream().collect(Collectors.toMap(Function.identity(), p -> spec)),
                new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
            .all()
            .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    Map<TopicPartition, Long> offsets = new HashMap<>();
    info.forEach((p, i) -> offsets.put(p, i.offset()));
    return offsets;
  }

  /** Partitions 0 to {@code count} - 1 of {@code topic}. */
  public static List<TopicPartition> partitionsOf(String topic, int count) {
    return IntStream.range(0, count).mapToObj(p -> new TopicPartition(topic, p)).toList();
  }

  /**
   * The offsets {@code topic} holds, summed over its partitions (records, and transaction markers
   * among them): 0 when it is empty or missing.
   */
  public static long recordsIn(Admin admin, KafkaConnection c, String topic)
      throws ExecutionException, InterruptedException {
    int count = partitions(admin, c, topic).orElse(0);
    List<TopicPartition> tps = partitionsOf(topic, count);
    try {
      Map<TopicPartition, Long> earliest = offsets(admin, tps, OffsetSpec.earliest(), c.timeout());
      Map<TopicPartition, Long> latest = offsets(admin, tps, OffsetSpec.latest(), c.timeout());
      long total = 0;
      for (TopicPartition tp : tps) {
        total += Math.max(0, latest.get(tp) - earliest.get(tp));
      }
      return total;
    } catch (TimeoutException e) {
      throw new ExecutionException("no answer in " + c.timeout().toMillis() + " ms", e);
    }
  }
}
