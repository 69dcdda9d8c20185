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
import java.util.Map;
import java.util.Properties;
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
 */
public final class LocalKafka implements AutoCloseable {
  private static final String HOST = "127.0.0.1";

  private final Path dataDir;
  private final boolean temporary;
  private final int port;
  private final int controllerPort;
  private final Map<String, String> overrides;
  private KafkaRaftServer server;

  private LocalKafka(Path dataDir, boolean temporary, int port, Map<String, String> overrides) {
    this.dataDir = dataDir;
    this.temporary = temporary;
    this.port = port == 0 ? freePort() : port;
    this.controllerPort = freePort();
    this.overrides = Map.copyOf(overrides);
  }

  /**
   * A broker on {@code port} (0: any free port) keeping its log in {@code dataDir} (null: temp).
   */
  public static LocalKafka create(int port, Path dataDir) {
    return create(port, dataDir, Map.of());
  }

  /** As {@link #create(int, Path)}, with broker properties that override the defaults. */
  public static LocalKafka create(int port, Path dataDir, Map<String, String> overrides) {
    try {
      if (dataDir == null) {
        return new LocalKafka(Files.createTempDirectory("tpot-kafka-"), true, port, overrides);
      }
      Files.createDirectories(dataDir);
      return new LocalKafka(dataDir.toAbsolutePath(), false, port, overrides);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the broker's data directory " + dataDir, e);
    }
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
    p.put(
        "listeners",
        "PLAINTEXT://" + HOST + ":" + port + ",CONTROLLER://" + HOST + ":" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + port);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
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
