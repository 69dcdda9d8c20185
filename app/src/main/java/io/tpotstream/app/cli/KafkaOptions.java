package io.tpotstream.app.cli;

import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaFailures;
import io.tpotstream.common.kafka.KafkaNeeds;
import io.tpotstream.common.kafka.KafkaPreflight;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Option;

/**
 * The Kafka flags of every command that talks to Kafka, spelled as Kafka's own tools spell them
 * (docs/kafka.md): where the cluster is, the client properties file, and how long a start-up call
 * may wait. The resolution and the file reading live in {@link KafkaConnection}.
 */
final class KafkaOptions {
  @Option(
      names = {"--bootstrap-server", "--bootstrap-servers"},
      paramLabel = "HOST:PORT[,...]",
      description =
          "Kafka to use (default: bootstrap.servers in --kafka-config, else"
              + " $KAFKA_BOOTSTRAP_SERVERS, else localhost:9092; run and demo: an embedded"
              + " broker).")
  String bootstrapServers;

  @Option(
      names = {"--kafka-config", "--command-config"},
      paramLabel = "FILE",
      description =
          "Kafka client properties (security.protocol, sasl.*, ssl.*, timeouts, ...) for every"
              + " Kafka client of the command; the file Kafka's own tools take with"
              + " --command-config. Never printed.")
  Path configFile;

  @Option(
      names = "--kafka-timeout",
      defaultValue = "15s",
      description =
          "How long each start-up call to Kafka may wait before the command stops with what to"
              + " check (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  /** The resolved connection (default localhost:9092), checked: reachable and authenticated. */
  KafkaConnection connect() {
    KafkaConnection c =
        KafkaConnection.resolveOrDefault(bootstrapServers, configFile, env(), timeout);
    KafkaPreflight.check(c);
    return c;
  }

  /**
   * The resolved connection (default localhost:9092), not checked: for {@code proxy}, which serves
   * while Kafka is away and reaches it in the background, and {@code replay}, which checks it while
   * it reads the archive.
   */
  KafkaConnection resolve() {
    return KafkaConnection.resolveOrDefault(bootstrapServers, configFile, env(), timeout);
  }

  /**
   * The connection when a flag, the file or the environment names one (checked), else empty: {@code
   * run} and {@code demo} then start an embedded broker, with the file's settings ignored.
   */
  Optional<KafkaConnection> connectIfGiven() {
    Optional<KafkaConnection> c =
        KafkaConnection.resolve(bootstrapServers, configFile, env(), timeout);
    c.ifPresent(KafkaPreflight::check);
    if (c.isEmpty() && configFile != null) {
      System.err.println(
          "tpot: warning: "
              + configFile
              + " names no bootstrap.servers and neither --bootstrap-server nor"
              + " KAFKA_BOOTSTRAP_SERVERS is set: starting an embedded broker, without the file's"
              + " settings");
    }
    return c;
  }

  /**
   * Runs {@code work}; a Kafka error it throws (authentication, a missing ACL, no answer) becomes
   * one line naming the resource, the operation or the address.
   */
  static <T> T explained(KafkaConnection c, KafkaNeeds needs, String doing, Callable<T> work)
      throws Exception {
    try {
      return work.call();
    } catch (Exception e) {
      Optional<? extends RuntimeException> known = KafkaFailures.recognize(e, c, needs, doing);
      if (known.isPresent()) {
        throw known.get();
      }
      throw e;
    }
  }

  private static Map<String, String> env() {
    return System.getenv();
  }
}
