package io.tpotstream.common.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The one place that turns what a Kafka client threw into a {@link KafkaAccessException} whose
 * message says what happened and what to check: failed authentication (the user and the file), a
 * missing ACL (the resource, the operation, and the {@code kafka-acls.sh} line that grants it), no
 * answer (the address and where it came from). Messages never hold a secret.
 */
public final class KafkaFailures {
  /** Where every message points for the full list of ACLs. */
  public static final String ACL_DOC = "docs/kafka.md";

  private static final Duration DIAGNOSIS_TIMEOUT = Duration.ofSeconds(5);

  private KafkaFailures() {}

  /**
   * Explains {@code failure}, thrown while trying to {@code doing} (e.g. "read
   * tpot.window-summaries"), in one line; see {@link #recognize}. Any other failure is reported
   * with the error Kafka gave.
   */
  public static KafkaAccessException explain(
      Throwable failure, KafkaConnection connection, KafkaNeeds needs, String doing) {
    return recognize(failure, connection, needs, doing)
        .orElseGet(
            () ->
                new KafkaAccessException(
                    "cannot "
                        + doing
                        + " at "
                        + connection.bootstrapServers()
                        + ": "
                        + said(failure),
                    failure));
  }

  /**
   * The explanation of {@code failure} when it is (or was caused by) a failure a user fixes: failed
   * authentication, a missing ACL (for which the broker is asked which operations the user has on
   * the resources {@code needs} names, so that the message says which are missing), no answer in
   * time, a missing topic; or a failure explained already. Empty for anything else.
   */
  public static Optional<KafkaAccessException> recognize(
      Throwable failure, KafkaConnection connection, KafkaNeeds needs, String doing) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof KafkaAccessException explained) {
        return Optional.of(explained);
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof AuthenticationException auth) {
        return Optional.of(authenticationFailed(auth, connection));
      }
      if (t instanceof AuthorizationException denied) {
        return Optional.of(notAuthorized(denied, connection, needs));
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof org.apache.kafka.common.errors.TimeoutException
          || t instanceof java.util.concurrent.TimeoutException) {
        return Optional.of(noAnswer(connection, doing, failure));
      }
      if (t instanceof UnknownTopicOrPartitionException) {
        return Optional.of(
            new KafkaAccessException(
                "cannot "
                    + doing
                    + " at "
                    + connection.bootstrapServers()
                    + ": a topic does not exist ("
                    + firstLine(t.getMessage())
                    + "); check the topic names",
                failure));
      }
    }
    return Optional.empty();
  }

  /** "authentication failed for user alice at HOST:PORT: check sasl.jaas.config in FILE". */
  public static KafkaAccessException authenticationFailed(
      AuthenticationException e, KafkaConnection c) {
    if (e instanceof SslAuthenticationException) {
      return new KafkaAccessException(
          "TLS handshake with "
              + c.bootstrapServers()
              + " failed: check ssl.truststore.location and ssl.truststore.password (and the"
              + " keystore, for mutual TLS) in "
              + c.configFileName()
              + " (Java said: "
              + said(e)
              + ")",
          e);
    }
    String user = c.user().map(u -> "user " + u).orElse("this client");
    return new KafkaAccessException(
        "authentication failed for "
            + user
            + " at "
            + c.bootstrapServers()
            + ": check sasl.jaas.config (user name and password) and sasl.mechanism in "
            + c.configFileName()
            + " (Kafka said: "
            + firstLine(e.getMessage())
            + ")",
        e);
  }

  /**
   * "no Kafka answer from HOST within 15 s while trying to …": what to check when a broker is
   * reachable but does not answer in time.
   */
  public static KafkaAccessException noAnswer(KafkaConnection c, String doing, Throwable cause) {
    return new KafkaAccessException(
        "no answer from Kafka at "
            + c.describe()
            + " within "
            + seconds(c.timeout())
            + " while trying to "
            + doing
            + ": check that the address is right, that the broker runs and is reachable from here"
            + " (also the addresses it advertises, advertised.listeners), and that"
            + " security.protocol in "
            + c.configFileName()
            + " matches the listener ("
            + c.securityProtocol()
            + " now)",
        cause);
  }

  private static KafkaAccessException notAuthorized(
      AuthorizationException e, KafkaConnection c, KafkaNeeds needs) {
    String who = c.user().map(u -> "user " + u).orElse("this client's principal");
    String principal = "User:" + c.user().orElse("<principal>");
    List<String> problems = new ArrayList<>();
    List<String> grants = new ArrayList<>();
    if (e instanceof TopicAuthorizationException topics) {
      Set<String> names = new LinkedHashSet<>(topics.unauthorizedTopics());
      if (names.isEmpty()) {
        needs.of(ResourceType.TOPIC).stream()
            .filter(n -> n.pattern() == PatternType.LITERAL)
            .forEach(n -> names.add(n.name()));
      }
      for (String topic : names) {
        describe(c, ResourceType.TOPIC, topic, needs, problems, grants, principal);
      }
    } else if (e instanceof GroupAuthorizationException group && group.groupId() != null) {
      describe(c, ResourceType.GROUP, group.groupId(), needs, problems, grants, principal);
    } else if (e instanceof GroupAuthorizationException) {
      for (KafkaNeeds.Need n : needs.of(ResourceType.GROUP)) {
        describe(c, ResourceType.GROUP, n.name(), needs, problems, grants, principal);
      }
    } else if (e instanceof TransactionalIdAuthorizationException) {
      for (KafkaNeeds.Need n : needs.of(ResourceType.TRANSACTIONAL_ID)) {
        problems.add(ops(n.operations()) + " " + resource(n));
        grants.add(grant(c, principal, n, n.operations()));
      }
    } else if (e instanceof ClusterAuthorizationException) {
      problems.add("do this on the cluster (" + firstLine(e.getMessage()) + ")");
    }
    if (problems.isEmpty()) {
      return new KafkaAccessException(
          who
              + " is not authorized at "
              + c.bootstrapServers()
              + " ("
              + firstLine(e.getMessage())
              + "): ask for the ACLs listed in "
              + ACL_DOC,
          e);
    }
    return new KafkaAccessException(
        who
            + " may not "
            + String.join("; nor ", problems)
            + " at "
            + c.bootstrapServers()
            + ": grant it, e.g. "
            + String.join(" and ", grants)
            + " ("
            + ACL_DOC
            + " lists every ACL tpot needs)",
        e);
  }

  /**
   * Adds "READ topic x (it may DESCRIBE)" for the operations {@code needs} names on the resource
   * that the broker does not allow the user: CREATE when it does not exist yet, the others when it
   * does.
   */
  private static void describe(
      KafkaConnection c,
      ResourceType type,
      String name,
      KafkaNeeds needs,
      List<String> problems,
      List<String> grants,
      String principal) {
    Set<AclOperation> needed = needs.on(type, name);
    if (needed.isEmpty()) {
      needed = EnumSet.of(AclOperation.DESCRIBE);
    }
    Access access = access(c, type, name);
    Set<AclOperation> missing = EnumSet.copyOf(needed);
    if (access.exists() == Boolean.FALSE && needed.contains(AclOperation.CREATE)) {
      missing = EnumSet.of(AclOperation.CREATE);
    } else {
      if (access.exists() == Boolean.TRUE && needed.size() > 1) {
        missing.remove(AclOperation.CREATE);
      }
      if (access.allowed() != null) {
        missing.removeAll(access.allowed());
      }
      if (missing.isEmpty()) {
        // everything declared is allowed: the operation that failed is one not declared
        missing = needed;
      }
    }
    String kind = type == ResourceType.TOPIC ? "topic" : "group";
    String has = "";
    if (access.allowed() != null) {
      has =
          access.allowed().isEmpty()
              ? " (it has no ACL on it)"
              : " (it may " + ops(access.allowed()) + ")";
    } else if (access.exists() == Boolean.FALSE) {
      has = " (it does not exist yet)";
    }
    problems.add(ops(missing) + " " + kind + " " + name + has);
    KafkaNeeds.Need declared =
        needs.of(type).stream()
            .filter(n -> n.matches(type, name))
            .findFirst()
            .orElse(new KafkaNeeds.Need(type, name, PatternType.LITERAL, missing));
    grants.add(grant(c, principal, declared, missing));
  }

  /**
   * What the broker says about the user and a resource: whether it exists (null: unknown) and the
   * operations allowed (null: unknown; empty: not even DESCRIBE).
   */
  private record Access(Boolean exists, Set<AclOperation> allowed) {}

  private static Access access(KafkaConnection c, ResourceType type, String name) {
    try (Admin admin = Admin.create(c.withTimeout(DIAGNOSIS_TIMEOUT).adminProperties())) {
      try {
        Set<AclOperation> ops;
        if (type == ResourceType.TOPIC) {
          ops =
              admin
                  .describeTopics(
                      List.of(name), new DescribeTopicsOptions().includeAuthorizedOperations(true))
                  .allTopicNames()
                  .get(DIAGNOSIS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                  .get(name)
                  .authorizedOperations();
        } else {
          ops =
              admin
                  .describeConsumerGroups(
                      List.of(name),
                      new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true))
                  .describedGroups()
                  .get(name)
                  .get(DIAGNOSIS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                  .authorizedOperations();
        }
        return new Access(
            true, ops == null ? null : ops.isEmpty() ? Set.of() : EnumSet.copyOf(ops));
      } catch (ExecutionException ex) {
        if (ex.getCause() instanceof AuthorizationException) {
          return new Access(null, Set.of());
        }
        if (ex.getCause() instanceof UnknownTopicOrPartitionException
            || ex.getCause() instanceof GroupIdNotFoundException) {
          return new Access(false, null);
        }
        return new Access(null, null);
      } finally {
        admin.close(Duration.ZERO);
      }
    } catch (Exception ex) {
      if (ex instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return new Access(null, null);
    }
  }

  private static String grant(
      KafkaConnection c, String principal, KafkaNeeds.Need need, Set<AclOperation> ops) {
    StringBuilder line =
        new StringBuilder("kafka-acls.sh --bootstrap-server ")
            .append(c.bootstrapServers())
            .append(" --command-config admin.properties --add --allow-principal ")
            .append(principal);
    for (AclOperation op : ops) {
      line.append(" --operation ").append(aclName(op));
    }
    if (need.pattern() == PatternType.PREFIXED) {
      line.append(" --resource-pattern-type prefixed");
    }
    line.append(
            switch (need.type()) {
              case TOPIC -> " --topic ";
              case GROUP -> " --group ";
              case TRANSACTIONAL_ID -> " --transactional-id ";
              default -> " --cluster";
            })
        .append(need.type() == ResourceType.CLUSTER ? "" : need.name());
    return line.toString();
  }

  private static String resource(KafkaNeeds.Need n) {
    String kind =
        switch (n.type()) {
          case TOPIC -> "topic";
          case GROUP -> "group";
          case TRANSACTIONAL_ID -> "transactional id";
          default -> "cluster";
        };
    return n.pattern() == PatternType.PREFIXED
        ? kind + "s starting with " + n.name()
        : kind + " " + n.name();
  }

  /** READ, WRITE: the operations as Kafka's tools and docs spell them. */
  static String ops(Set<AclOperation> ops) {
    return ops.stream().map(AclOperation::name).collect(Collectors.joining(", "));
  }

  /** DESCRIBE_CONFIGS → DescribeConfigs, as kafka-acls.sh takes it. */
  static String aclName(AclOperation op) {
    StringBuilder name = new StringBuilder();
    for (String part : op.name().toLowerCase(Locale.ROOT).split("_")) {
      name.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
    }
    return name.toString();
  }

  static String said(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String text = root.getMessage() == null ? "" : ": " + firstLine(root.getMessage());
    return root.getClass().getSimpleName() + text;
  }

  static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private static String firstLine(String text) {
    return text == null ? "" : text.lines().findFirst().orElse("");
  }
}
