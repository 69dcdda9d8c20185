package io.tpotstream.broker;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * A real single-node Kafka broker in KRaft combined mode (broker and controller in one process),
 * started in-process from the Kafka Maven artifacts and listening on 127.0.0.1 only. Internal
 * topics are sized for one broker so that transactions (exactly-once) work against it.
 *
 * <p>With a data directory the log survives {@link #stop()} and a later start; without one a
 * temporary directory is used and removed on stop.
 *
 * <p>{@link #createSecured} starts it as a secured cluster is run: every listener SASL_PLAINTEXT
 * with the PLAIN mechanism (and, given a key store, one more client listener SASL_SSL), ACLs on
 * ({@code StandardAuthorizer}), deny by default, and one super user, {@value #SUPER_USER}, that the
 * broker itself uses (and that may create ACLs).
 */
public final class LocalKafka implements AutoCloseable {
  /** The address every listener of the broker binds to. */
  public static final String HOST = "127.0.0.1";

  /** The secured broker's own user, a super user. */
  public static final String SUPER_USER = "broker";

  private static final String PLAIN_MODULE =
      "org.apache.kafka.common.security.plain.PlainLoginModule";

  private final Path dataDir;
  private final boolean temporary;
  private final int port;
  private final int controllerPort;
  private final Map<String, String> overrides;
  private final Map<String, String> saslUsers;
  private final Tls tls;
  private final int tlsPort;
  private KafkaRaftServer server;

  /** The key store (PKCS12) of a SASL_SSL listener and its password. */
  public record Tls(Path keystore, String password) {}

  /** A broker on {@code port} (0: any free port) with its log in {@code dataDir} (null: temp). */
  private LocalKafka(
      int port,
      Path dataDir,
      Map<String, String> overrides,
      Map<String, String> saslUsers,
      Tls tls) {
    this.temporary = dataDir == null;
    this.dataDir = logDirectory(dataDir);
    this.port = port == 0 ? freePort() : port;
    this.controllerPort = freePort();
    this.overrides = Map.copyOf(overrides);
    this.saslUsers = saslUsers == null ? null : new TreeMap<>(saslUsers);
    this.tls = tls;
    this.tlsPort = tls == null ? 0 : freePort();
  }

  /** {@code dataDir}, created when missing, or a new temporary directory when null. */
  private static Path logDirectory(Path dataDir) {
    try {
      return dataDir == null
          ? Files.createTempDirectory("tpot-kafka-")
          : Files.createDirectories(dataDir).toAbsolutePath();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the broker's data directory " + dataDir, e);
    }
  }

  /**
   * A broker on {@code port} (0: any free port) keeping its log in {@code dataDir} (null: temp).
   */
  public static LocalKafka create(int port, Path dataDir) {
    return create(port, dataDir, Map.of());
  }

  /** As {@link #create(int, Path)}, with broker properties that override the defaults. */
  public static LocalKafka create(int port, Path dataDir, Map<String, String> overrides) {
    return new LocalKafka(port, dataDir, overrides, null, null);
  }

  /**
   * A secured broker: SASL_PLAINTEXT listeners with the PLAIN mechanism for {@code users} (name →
   * password) and for {@value #SUPER_USER} (a random password, see {@link #superUserSettings()}),
   * ACLs on with {@code StandardAuthorizer}, and nothing allowed to anyone without an ACL.
   */
  public static LocalKafka createSecured(int port, Path dataDir, Map<String, String> users) {
    return createSecured(port, dataDir, users, null);
  }

  /**
   * As {@link #createSecured(int, Path, Map)}, plus a SASL_SSL listener (PLAIN over TLS) on a free
   * port with the key store {@code tls} ({@link #tlsBootstrapServers()}); null: none.
   */
  public static LocalKafka createSecured(
      int port, Path dataDir, Map<String, String> users, Tls tls) {
    Map<String, String> all = new TreeMap<>(users);
    all.put(SUPER_USER, UUID.randomUUID().toString());
    return new LocalKafka(port, dataDir, Map.of(), all, tls);
  }

  /** True when the broker was created with {@link #createSecured}. */
  public boolean secured() {
    return saslUsers != null;
  }

  /**
   * Client settings for {@code user} of a secured broker (security.protocol, sasl.mechanism,
   * sasl.jaas.config), as a client.properties file holds them; empty for a plain broker.
   */
  public Map<String, String> clientSettings(String user, String password) {
    if (saslUsers == null) {
      return Map.of();
    }
    return Map.of(
        "security.protocol",
        "SASL_PLAINTEXT",
        "sasl.mechanism",
        "PLAIN",
        "sasl.jaas.config",
        PLAIN_MODULE + " required username=\"" + user + "\" password=\"" + password + "\";");
  }

  /** The SASL_SSL listener's address, when the broker has one. */
  public String tlsBootstrapServers() {
    if (tls == null) {
      throw new IllegalStateException("this broker has no SASL_SSL listener");
    }
    return HOST + ":" + tlsPort;
  }

  /** The settings of {@value #SUPER_USER}, who may do anything (e.g. create ACLs). */
  public Map<String, String> superUserSettings() {
    return saslUsers == null ? Map.of() : clientSettings(SUPER_USER, saslUsers.get(SUPER_USER));
  }

  /**
   * Starts a broker on a free port in a temporary directory and waits until clients can connect.
   */
  public static LocalKafka startTemporary() {
    LocalKafka kafka = create(0, null);
    kafka.start();
    return kafka;
  }

  /**
   * Formats the storage when it is new, starts the server and returns once a client has seen the
   * broker (typically 5 s).
   */
  public synchronized LocalKafka start() {
    if (server != null) {
      return this;
    }
    Properties props = brokerProperties();
    Path config = dataDir.resolve("server.properties");
    try (Writer out = Files.newBufferedWriter(config)) {
      props.store(out, "written by tpot-stream's LocalKafka");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + config, e);
    }
    format(config);
    KafkaRaftServer started = new KafkaRaftServer(KafkaConfig.fromProps(props), Time.SYSTEM);
    started.startup();
    server = started;
    awaitReady(Duration.ofSeconds(60));
    return this;
  }

  /** The address clients use: {@code 127.0.0.1:PORT}. */
  public String bootstrapServers() {
    return HOST + ":" + port;
  }

  public int port() {
    return port;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** Stops the server (log kept) and starts it again on the same ports. */
  public synchronized void restart() {
    shutdownServer();
    start();
  }

  /** Stops the server; a temporary data directory is removed. */
  public synchronized void stop() {
    shutdownServer();
    if (temporary) {
      deleteRecursively(dataDir);
    }
  }

  @Override
  public void close() {
    stop();
  }

  private void shutdownServer() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  private Properties brokerProperties() {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@" + HOST + ":" + controllerPort);
    String protocol = saslUsers == null ? "PLAINTEXT" : "SASL_PLAINTEXT";
    String client = protocol + "://" + HOST + ":" + port;
    String map = protocol + ":" + protocol + ",CONTROLLER:" + protocol;
    if (tls != null) {
      client += ",SASL_SSL://" + HOST + ":" + tlsPort;
      map += ",SASL_SSL:SASL_SSL";
    }
    p.put("listeners", client + ",CONTROLLER://" + HOST + ":" + controllerPort);
    p.put("advertised.listeners", client);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", protocol);
    p.put("listener.security.protocol.map", map);
    if (saslUsers != null) {
      secure(p, protocol);
    }
    p.put("log.dirs", dataDir.resolve("log").toString());
    // One broker: internal topics cannot have more than one replica.
    p.put("offsets.topic.replication.factor", "1");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    // Fewer internal partitions: a faster start and less memory; one broker gains nothing from 50.
    p.put("offsets.topic.num.partitions", "5");
    p.put("transaction.state.log.num.partitions", "5");
    // Consumer groups start at once instead of waiting 3 s for more members.
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("auto.create.topics.enable", "true");
    p.put("num.partitions", "1");
    overrides.forEach(p::put);
    return p;
  }

  /**
   * SASL/PLAIN on both listeners (the broker authenticates to its controller as {@value
   * #SUPER_USER}), ACLs on, deny by default.
   */
  private void secure(Properties p, String protocol) {
    StringBuilder jaas =
        new StringBuilder(PLAIN_MODULE)
            .append(" required username=\"")
            .append(SUPER_USER)
            .append("\" password=\"")
            .append(saslUsers.get(SUPER_USER))
            .append('"');
    saslUsers.forEach(
        (user, password) ->
            jaas.append(" user_").append(user).append("=\"").append(password).append('"'));
    jaas.append(';');
    p.put("sasl.enabled.mechanisms", "PLAIN");
    p.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
    p.put("sasl.mechanism.controller.protocol", "PLAIN");
    p.put(
        "listener.name." + protocol.toLowerCase(Locale.ROOT) + ".plain.sasl.jaas.config",
        jaas.toString());
    p.put("listener.name.controller.plain.sasl.jaas.config", jaas.toString());
    if (tls != null) {
      p.put("listener.name.sasl_ssl.plain.sasl.jaas.config", jaas.toString());
      p.put("listener.name.sasl_ssl.ssl.keystore.location", tls.keystore().toString());
      p.put("listener.name.sasl_ssl.ssl.keystore.password", tls.password());
      p.put("listener.name.sasl_ssl.ssl.keystore.type", "PKCS12");
    }
    p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
    p.put("allow.everyone.if.no.acl.found", "false");
    p.put("super.users", "User:" + SUPER_USER);
  }

  private void format(Path config) {
    if (Files.exists(dataDir.resolve("log").resolve("meta.properties"))) {
      return;
    }
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    String[] args = {
      "format", "-t", Uuid.randomUuid().toString(), "-c", config.toString(), "--ignore-formatted"
    };
    int rc;
    try (PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
      rc = StorageTool.execute(args, out);
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot format Kafka storage in " + dataDir + ": " + e.getMessage(), e);
    }
    if (rc != 0) {
      throw new IllegalStateException(
          "formatting Kafka storage in "
              + dataDir
              + " failed: "
              + captured.toString(StandardCharsets.UTF_8));
    }
  }

  private void awaitReady(Duration timeout) {
    Properties admin = new Properties();
    admin.putAll(superUserSettings());
    admin.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    admin.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    admin.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    try (Admin client = Admin.create(admin)) {
      while (System.nanoTime() < deadline) {
        try {
          if (!client.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (Exception e) {
          last = e;
        }
        Thread.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    throw new IllegalStateException(
        "Kafka broker at " + bootstrapServers() + " did not become ready within " + timeout, last);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free TCP port on " + HOST, e);
    }
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a leftover temp directory is harmless
    }
  }
}
