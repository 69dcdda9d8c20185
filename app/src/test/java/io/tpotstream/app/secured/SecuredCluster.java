package io.tpotstream.app.secured;

import io.tpotstream.broker.LocalKafka;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The secured broker of this test JVM (a second broker beside testkit's, hence its own surefire
 * execution): SASL_PLAINTEXT with PLAIN, ACLs on, deny by default; user {@value #USER} holds
 * exactly the ACLs docs/kafka.md lists, granted by the broker's super user.
 */
final class SecuredCluster {
  static final String USER = "tpot";
  static final String PASSWORD = "pw-" + UUID.randomUUID();

  private static LocalKafka broker;

  private SecuredCluster() {}

  static synchronized LocalKafka broker() throws Exception {
    if (broker == null) {
      LocalKafka kafka = LocalKafka.createSecured(0, null, Map.of(USER, PASSWORD));
      kafka.start();
      Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop, "secured-kafka-stop"));
      try (Admin admin = superAdmin(kafka)) {
        admin
            .createAcls(DocumentedAcls.forPrincipal("User:" + USER))
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      broker = kafka;
    }
    return broker;
  }

  static Admin superAdmin(LocalKafka kafka) {
    Properties p = new Properties();
    p.putAll(kafka.superUserSettings());
    p.put("bootstrap.servers", kafka.bootstrapServers());
    return Admin.create(p);
  }

  /**
   * A client.properties for {@value #USER} with {@code password}, with {@code bootstrap.servers}
   * when {@code withBootstrap}.
   */
  static Path propertiesFile(Path dir, String name, String password, boolean withBootstrap)
      throws IOException {
    Map<String, String> settings = new TreeMap<>(broker.clientSettings(USER, password));
    if (withBootstrap) {
      settings.put("bootstrap.servers", broker.bootstrapServers());
    }
    Properties p = new Properties();
    p.putAll(settings);
    Path file = dir.resolve(name);
    try (Writer out = Files.newBufferedWriter(file)) {
      p.store(out, null);
    }
    return file;
  }

  /** The records of {@code topic}: the sum of its partitions' end offsets. */
  static long records(String topic) throws Exception {
    try (Admin admin = superAdmin(broker)) {
      int partitions =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get(topic)
              .partitions()
              .size();
      Map<TopicPartition, OffsetSpec> query =
          new TreeMap<>((a, b) -> a.partition() - b.partition());
      for (int p = 0; p < partitions; p++) {
        query.put(new TopicPartition(topic, p), OffsetSpec.latest());
      }
      Map<TopicPartition, ListOffsetsResultInfo> ends =
          admin.listOffsets(query).all().get(30, TimeUnit.SECONDS);
      return ends.values().stream().mapToLong(ListOffsetsResultInfo::offset).sum();
    }
  }

  /** Topic names on the broker (as the super user sees them). */
  static Set<String> topics() throws Exception {
    try (Admin admin = superAdmin(broker)) {
      return admin.listTopics().names().get(30, TimeUnit.SECONDS);
    }
  }

  /** Consumer group ids on the broker. */
  static Set<String> groups() throws Exception {
    try (Admin admin = superAdmin(broker)) {
      return Set.copyOf(
          admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
              .map(g -> g.groupId())
              .toList());
    }
  }
}
