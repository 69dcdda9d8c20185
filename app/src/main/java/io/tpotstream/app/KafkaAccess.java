package io.tpotstream.app;

import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.sink.SinkConfig;

/**
 * What each command needs on a secured cluster (the operations per topic, group and transactional
 * id), so that a missing ACL is reported by resource and operation. docs/kafka.md lists the
 * prefixed ACLs that cover them all with the default names.
 */
public final class KafkaAccess {
  private KafkaAccess() {}

  /** {@code produce} and {@code replay}: write the token events (create the topic if missing). */
  public static KafkaNeeds writer(String topic) {
    return KafkaNeeds.none().topic(topic, DESCRIBE, WRITE, CREATE);
  }

  /** {@code export} and {@code report --from-topic}: read a topic without a group. */
  public static KafkaNeeds reader(String topic) {
    return KafkaNeeds.none().topic(topic, DESCRIBE, READ);
  }

  /**
   * {@code aggregate}: Kafka Streams with exactly-once: its group, its internal topics and its
   * transactional ids are named after the application id.
   */
  public static KafkaNeeds aggregator(AggregatorConfig config) {
    String id = config.applicationId();
    return KafkaNeeds.none()
        .topic(config.inputTopic(), DESCRIBE, READ, CREATE)
        .topic(config.outputTopic(), DESCRIBE, WRITE, CREATE)
        .topic(config.deadLetterTopic(), DESCRIBE, WRITE, CREATE)
        .topicsPrefixed(id + "-", CREATE, DESCRIBE, READ, WRITE, DELETE)
        .group(id, READ)
        .transactionalIdsPrefixed(id + "-", WRITE);
  }

  /** {@code sink}: read the summaries as a group, write the metrics topic in transactions. */
  public static KafkaNeeds sink(SinkConfig config) {
    KafkaNeeds needs =
        KafkaNeeds.none()
            .topic(config.inputTopic(), DESCRIBE, READ, CREATE)
            .group(config.groupId(), READ);
    if (config.metricsTopic() != null) {
      needs
          .topic(config.metricsTopic(), DESCRIBE, WRITE, CREATE)
          .transactionalId(config.transactionalId(), WRITE);
    }
    return needs;
  }
}
