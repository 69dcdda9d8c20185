package io.tpotstream.producer.publish;

import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaAccessException;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaTopics;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publisher's side of Kafka's setup: the client's settings in three layers, and the topic, made
 * when it is missing, with every partition led before the first send.
 */
final class PublishTopic {
  private static final Logger LOG = LoggerFactory.getLogger(PublishTopic.class);
  private static final String BYTES = ByteArraySerializer.class.getName();

  private PublishTopic() {}

  /**
   * The Kafka client's settings in three layers: our defaults, then the user's client properties
   * (security, tuning) and the bootstrap servers, then what the publisher relies on.
   */
  static Properties producerProperties(KafkaSettings settings, String producerId) {
    Properties p = new Properties();
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "tpot-producer-" + producerId);
    p.putAll(
        Map.ofEntries(
            // token events are small and repetitive JSON; lz4 is cheap on the sender
            Map.entry(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"),
            // events carry their own timestamps, so batching delay is harmless: 20 ms of
            // linger makes batches of hundreds of events (fewer requests, better lz4 ratios)
            Map.entry(ProducerConfig.LINGER_MS_CONFIG, "20"),
            // a batch closes on linger, not on size, at the rates a producer makes
            Map.entry(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024)),
            // the client's own buffer on the heap: 16 MB (half its default) is seconds of events
            // at 1,000 streams; past it, events wait in the outage buffer (produce's heap: 128 MB)
            Map.entry(ProducerConfig.BUFFER_MEMORY_CONFIG, Integer.toString(16 * 1024 * 1024)),
            // ride out a broker restart: retried batches wait up to 5 minutes (idempotence
            // keeps order)
            Map.entry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000")));
    p.putAll(settings.connection().clientProperties());
    p.putAll(
        Map.ofEntries(
            Map.entry(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, BYTES),
            Map.entry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, BYTES),
            // no duplicates and no reordering on retry: the aggregator relies on per-request order
            Map.entry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"),
            Map.entry(ProducerConfig.ACKS_CONFIG, "all"),
            // never block the publisher thread: no metadata or no buffer space refuses the send
            // at once, and the event waits in the outage buffer instead
            Map.entry(ProducerConfig.MAX_BLOCK_MS_CONFIG, "0")));
    return p;
  }

  /** Partitions 0 to {@code count} - 1. */
  static List<Integer> partitionList(int count) {
    return java.util.stream.IntStream.range(0, count).boxed().toList();
  }

  /** Creates the topic when it is missing (main's one reader); returns its partition count. */
  static int ensureTopic(KafkaSettings settings) {
    KafkaConnection kafka = settings.connection();
    int timeoutMs = (int) settings.setupTimeout().toMillis();
    try (Admin admin = Admin.create(kafka.adminProperties())) {
      KafkaTopics.Ensured topic =
          KafkaTopics.ensure(
              admin, kafka, settings.topic(), settings.partitions(), Topics.TOKEN_EVENTS_CONFIG);
      if (topic.created()) {
        return awaitLeaders(admin, settings, timeoutMs);
      }
      return topic.partitions();
    } catch (KafkaAccessException e) {
      throw new PublishException(e.getMessage(), e);
    } catch (TimeoutException e) {
      throw new PublishException(unreachable(settings, e), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new PublishException("interrupted while connecting to Kafka", e);
    }
  }

  /**
   * Waits until every partition of a topic created a moment ago has a leader: the first sends to a
   * partition whose leader is not yet known are retried by the client, and were seen to end in
   * sequence errors on a fresh single-node broker. Returns the partition count.
   */
  private static int awaitLeaders(Admin admin, KafkaSettings settings, int timeoutMs)
      throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    int count = settings.partitions();
    while (System.nanoTime() < deadline) {
      try {
        TopicDescription d =
            admin
                .describeTopics(List.of(settings.topic()))
                .allTopicNames()
                .get(timeoutMs, TimeUnit.MILLISECONDS)
                .get(settings.topic());
        count = d.partitions().size();
        if (d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
          return count;
        }
      } catch (ExecutionException e) {
        // metadata not propagated yet: ask again
      }
      Thread.sleep(50);
    }
    LOG.warn("topic {}: not every partition had a leader after {} ms", settings.topic(), timeoutMs);
    return count;
  }

  static String unreachable(KafkaSettings settings, Throwable cause) {
    return "cannot reach Kafka at "
        + settings.bootstrapServers()
        + " within "
        + settings.setupTimeout().toSeconds()
        + " s ("
        + cause.getClass().getSimpleName()
        + (cause.getMessage() == null ? "" : ": " + cause.getMessage())
        + "): check --bootstrap-server and, for a secured cluster, --kafka-config";
  }
}
