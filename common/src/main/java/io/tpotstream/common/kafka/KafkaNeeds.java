package io.tpotstream.common.kafka;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What a command needs from a secured cluster: the operations on each topic, group and
 * transactional id (exact names or prefixes). {@link KafkaFailures} compares them with what the
 * broker allows the user when an authorization error comes, so that the message names the missing
 * resource and operation. docs/kafka.md lists the ACLs that cover every command.
 */
public final class KafkaNeeds {
  /** One resource (or every resource with a prefix) and the operations needed on it. */
  public record Need(
      ResourceType type, String name, PatternType pattern, Set<AclOperation> operations) {
    public Need {
      operations = Collections.unmodifiableSet(EnumSet.copyOf(operations));
    }

    boolean matches(ResourceType t, String resource) {
      return type == t
          && (pattern == PatternType.PREFIXED ? resource.startsWith(name) : resource.equals(name));
    }
  }

  private final List<Need> needs = new ArrayList<>();

  /** Nothing needed yet. */
  public static KafkaNeeds none() {
    return new KafkaNeeds();
  }

  public KafkaNeeds topic(String name, AclOperation... operations) {
    return add(ResourceType.TOPIC, name, PatternType.LITERAL, operations);
  }

  public KafkaNeeds topicsPrefixed(String prefix, AclOperation... operations) {
    return add(ResourceType.TOPIC, prefix, PatternType.PREFIXED, operations);
  }

  public KafkaNeeds group(String id, AclOperation... operations) {
    return add(ResourceType.GROUP, id, PatternType.LITERAL, operations);
  }

  public KafkaNeeds groupsPrefixed(String prefix, AclOperation... operations) {
    return add(ResourceType.GROUP, prefix, PatternType.PREFIXED, operations);
  }

  public KafkaNeeds transactionalId(String id, AclOperation... operations) {
    return add(ResourceType.TRANSACTIONAL_ID, id, PatternType.LITERAL, operations);
  }

  public KafkaNeeds transactionalIdsPrefixed(String prefix, AclOperation... operations) {
    return add(ResourceType.TRANSACTIONAL_ID, prefix, PatternType.PREFIXED, operations);
  }

  /** Everything {@code other} needs too. */
  public KafkaNeeds and(KafkaNeeds other) {
    needs.addAll(other.needs);
    return this;
  }

  public List<Need> all() {
    return List.copyOf(needs);
  }

  /** The operations needed on {@code name} of {@code type} (empty when none is declared). */
  public Set<AclOperation> on(ResourceType type, String name) {
    Set<AclOperation> ops = EnumSet.noneOf(AclOperation.class);
    for (Need n : needs) {
      if (n.matches(type, name)) {
        ops.addAll(n.operations());
      }
    }
    return ops;
  }

  /** The declared resources of {@code type}. */
  public List<Need> of(ResourceType type) {
    return needs.stream().filter(n -> n.type() == type).toList();
  }

  private KafkaNeeds add(
      ResourceType type, String name, PatternType pattern, AclOperation... operations) {
    needs.add(new Need(type, name, pattern, EnumSet.of(operations[0], operations)));
    return this;
  }
}
