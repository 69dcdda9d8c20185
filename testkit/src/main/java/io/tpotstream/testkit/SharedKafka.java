package io.tpotstream.testkit;

import io.tpotstream.broker.LocalKafka;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/** The one Kafka of this test JVM, started lazily and stopped by a shutdown hook. */
public final class SharedKafka {
  /** The image Testcontainers starts when Docker is present. */
  public static final String KAFKA_IMAGE = "apache/kafka:4.1.0";

  private static final Logger LOG = LoggerFactory.getLogger(SharedKafka.class);
  private static TestKafka instance;

  private SharedKafka() {}

  /** The shared Kafka, started on first call. */
  public static synchronized TestKafka get() {
    if (instance == null) {
      instance = start();
    }
    return instance;
  }

  private static TestKafka start() {
    String external = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
    if (external != null && !external.isBlank()) {
      LOG.info("tests use the Kafka at KAFKA_BOOTSTRAP_SERVERS={}", external);
      return new TestKafka(external, "env");
    }
    if (dockerAvailable()) {
      KafkaContainer container = new KafkaContainer(KAFKA_IMAGE);
      container.start();
      Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "testkit-kafka-stop"));
      LOG.info("tests use a Testcontainers Kafka at {}", container.getBootstrapServers());
      return new TestKafka(container.getBootstrapServers(), "testcontainers");
    }
    LocalKafka kafka = LocalKafka.startTemporary();
    Runtime.getRuntime().addShutdownHook(new Thread(kafka::stop, "testkit-kafka-stop"));
    LOG.info("tests use the embedded Kafka broker at {}", kafka.bootstrapServers());
    return new TestKafka(kafka.bootstrapServers(), "embedded");
  }

  private static boolean dockerAvailable() {
    if ("false".equalsIgnoreCase(System.getenv("TPOT_TESTCONTAINERS"))) {
      return false;
    }
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (Throwable e) {
      return false;
    }
  }
}
