package io.tpotstream.app;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import picocli.CommandLine.Option;

/** The Kafka connection flags every command shares. */
public final class KafkaOptions {
  @Option(
      names = "--bootstrap-servers",
      defaultValue = "${env:KAFKA_BOOTSTRAP_SERVERS:-127.0.0.1:9092}",
      description =
          "Kafka bootstrap servers (default: $KAFKA_BOOTSTRAP_SERVERS or ${DEFAULT-VALUE}).")
  public String bootstrapServers;

  @Option(
      names = "--kafka-config",
      description =
          "A client.properties file (security, SASL, TLS...) applied to every Kafka client.")
  public Path kafkaConfig;

  /** The client properties from {@code --kafka-config} plus the bootstrap servers. */
  public Properties clientProperties() {
    Properties p = new Properties();
    if (kafkaConfig != null) {
      try (Reader in = Files.newBufferedReader(kafkaConfig)) {
        p.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read --kafka-config " + kafkaConfig, e);
      }
    }
    p.put("bootstrap.servers", bootstrapServers);
    return p;
  }
}
