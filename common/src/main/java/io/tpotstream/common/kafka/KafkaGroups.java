package io.tpotstream.common.kafka;

import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;

/**
 * What a consumer group has committed (the sink's group before it starts, the aggregator's while it
 * catches up), bounded by the connection's timeout; a failure is a {@link KafkaAccessException}
 * that says what to check.
 */
public final class KafkaGroups {
  private KafkaGroups() {}

  /** Offsets {@code group} has committed on {@code topic} (empty for a new group). */
  public static Map<TopicPartition, OffsetAndMetadata> committedOffsets(
      Admin admin, KafkaConnection c, String group, String topic) {
    String doing = "read the offsets of group " + group;
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(c.timeout().toMillis(), TimeUnit.MILLISECONDS);
      offsets.keySet().removeIf(p -> !p.topic().equals(topic));
      offsets.values().removeIf(o -> o == null);
      return offsets;
    } catch (ExecutionException e) {
      throw KafkaFailures.explain(
          e.getCause(), c, KafkaNeeds.none().group(group, AclOperation.READ), doing);
    } catch (TimeoutException e) {
      throw KafkaFailures.noAnswer(c, doing, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaAccessException("interrupted while trying to " + doing, e);
    }
  }
}
