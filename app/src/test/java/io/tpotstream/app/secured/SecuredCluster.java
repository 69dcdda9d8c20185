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

  /** A second user, with the ACLs on the shared tpot.* topics only. */
  static final String LIMITED = "limited";

  static final String STORE_PASSWORD = "store-" + UUID.randomUUID();

  private static LocalKafka broker;
  private static Path stores;

  private SecuredCluster() {}

  static synchronized LocalKafka broker() throws Exception {
    if (broker == null) {
      stores = Files.createTempDirectory("tpot-tls-");
      keyPair("broker", stores.resolve("broker.p12"));
      trustStore(stores.resolve("broker.p12"), "broker", stores.resolve("truststore.p12"));
      LocalKafka kafka =
          LocalKafka.createSecured(
              0,
              null,
              Map.of(USER, PASSWORD, LIMITED, PASSWORD),
              new LocalKafka.Tls(stores.resolve("broker.p12"), STORE_PASSWORD));
      kafka.start();
      Path made = stores;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    kafka.stop();
                    try (var files = Files.list(made)) {
                      files.forEach(f -> f.toFile().delete());
                    } catch (IOException e) {
                      // a leftover temporary directory is harmless
                    }
                    made.toFile().delete();
                  },
                  "secured-kafka-stop"));
      try (Admin admin = superAdmin(kafka)) {
        admin
            .createAcls(DocumentedAcls.forPrincipal("User:" + USER))
            .all()
            .get(30, TimeUnit.SECONDS);
        admin
            .createAcls(
                DocumentedAcls.forPrincipal("User:" + LIMITED).stream()
                    .filter(acl -> acl.pattern().name().equals("tpot."))
                    .toList())
            .all()
            .get(30, TimeUnit.SECONDS);
      }
      broker = kafka;
    }
    return broker;
  }

  /** A self-signed key pair for 127.0.0.1 in a new PKCS12 key store, made by the JDK's keytool. */
  static void keyPair(String alias, Path store) throws Exception {
    keytool(
        "-genkeypair",
        "-alias",
        alias,
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=IP:127.0.0.1",
        "-storetype",
        "PKCS12",
        "-keystore",
        store.toString(),
        "-storepass",
        STORE_PASSWORD,
        "-keypass",
        STORE_PASSWORD);
  }

  /** A trust store holding the certificate of {@code alias} in {@code keyStore}. */
  static void trustStore(Path keyStore, String alias, Path trustStore) throws Exception {
    Path pem = keyStore.resolveSibling(alias + ".pem");
    keytool(
        "-exportcert",
        "-alias",
        alias,
        "-keystore",
        keyStore.toString(),
        "-storepass",
        STORE_PASSWORD,
        "-rfc",
        "-file",
        pem.toString());
    keytool(
        "-importcert",
        "-noprompt",
        "-alias",
        alias,
        "-file",
        pem.toString(),
        "-storetype",
        "PKCS12",
        "-keystore",
        trustStore.toString(),
        "-storepass",
        STORE_PASSWORD);
  }

  private static void keytool(String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + out);
    }
  }

  /** The directory of the key and trust stores. */
  static Path stores() {
    return stores;
  }

  /**
   * A client.properties for {@value #USER} over SASL_SSL, trusting the certificates of {@code
   * trustStore}, with the TLS listener's {@code bootstrap.servers}.
   */
  static Path tlsPropertiesFile(Path dir, String name, Path trustStore) throws IOException {
    Map<String, String> settings = new TreeMap<>(broker.clientSettings(USER, PASSWORD));
    settings.put("security.protocol", "SASL_SSL");
    settings.put("ssl.truststore.location", trustStore.toString());
    settings.put("ssl.truststore.password", STORE_PASSWORD);
    settings.put("ssl.truststore.type", "PKCS12");
    settings.put("bootstrap.servers", broker.tlsBootstrapServers());
    return store(dir.resolve(name), settings);
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
    return propertiesFile(dir, name, USER, password, withBootstrap);
  }

  static Path propertiesFile(
      Path dir, String name, String user, String password, boolean withBootstrap)
      throws IOException {
    Map<String, String> settings = new TreeMap<>(broker.clientSettings(user, password));
    if (withBootstrap) {
      settings.put("bootstrap.servers", broker.bootstrapServers());
    }
    return store(dir.resolve(name), settings);
  }

  private static Path store(Path file, Map<String, String> settings) throws IOException {
    Properties p = new Properties();
    p.putAll(settings);
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
