package io.tpotstream.app;

import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.sink.Sink;
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

  /** {@code aggregate}: see {@link Aggregator#kafkaNeeds}. */
  public static KafkaNeeds aggregator(AggregatorConfig config) {
    return Aggregator.kafkaNeeds(config);
  }

  /** {@code sink}: see {@link Sink#kafkaNeeds}. */
  public static KafkaNeeds sink(SinkConfig config) {
    return Sink.kafkaNeeds(config);
  }
}
