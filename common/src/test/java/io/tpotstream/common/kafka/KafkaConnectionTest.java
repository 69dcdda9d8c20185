package io.tpotstream.common.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one order of precedence for the bootstrap servers, and the one reader of the file. */
class KafkaConnectionTest {
  static final Duration T = Duration.ofSeconds(3);
  static final Map<String, String> ENV = Map.of("KAFKA_BOOTSTRAP_SERVERS", "env:9092");

  @TempDir Path dir;

  Path file(String text) throws Exception {
    Path f = dir.resolve("client.properties");
    Files.writeString(f, text);
    return f;
  }

  @Test
  void theFlagBeatsTheFileWhichBeatsTheEnvironmentWhichBeatsTheDefault() throws Exception {
    Path withServers = file("bootstrap.servers=file:9092\nsecurity.protocol=SASL_SSL\n");
    KafkaConnection flag = KafkaConnection.resolveOrDefault("flag:9092", withServers, ENV, T);
    assertEquals("flag:9092", flag.bootstrapServers());
    assertEquals("--bootstrap-server", flag.bootstrapFrom());

    KafkaConnection fromFile = KafkaConnection.resolveOrDefault(null, withServers, ENV, T);
    assertEquals("file:9092", fromFile.bootstrapServers());
    assertEquals("bootstrap.servers in " + withServers, fromFile.bootstrapFrom());

    Path without = dir.resolve("plain.properties");
    Files.writeString(without, "security.protocol=SASL_SSL\n");
    KafkaConnection env = KafkaConnection.resolveOrDefault(null, without, ENV, T);
    assertEquals("env:9092", env.bootstrapServers());
    assertEquals("KAFKA_BOOTSTRAP_SERVERS", env.bootstrapFrom());

    KafkaConnection none = KafkaConnection.resolveOrDefault(null, without, Map.of(), T);
    assertEquals("localhost:9092", none.bootstrapServers());
    assertEquals("the default", none.bootstrapFrom());
    assertEquals(Optional.empty(), KafkaConnection.resolve(null, without, Map.of(), T));
    assertEquals(Optional.empty(), KafkaConnection.resolve(" ", null, Map.of("X", "y"), T));
  }

  @Test
  void theFileSettingsReachEveryClientButNeverOverrideTheResolvedServers() throws Exception {
    Path f = file("bootstrap.servers=file:9092\nsasl.mechanism=PLAIN\nclient.id=mine\n");
    KafkaConnection c = KafkaConnection.resolveOrDefault("flag:9092", f, Map.of(), T);
    assertEquals(Map.of("client.id", "mine", "sasl.mechanism", "PLAIN"), c.settings());
    assertEquals("flag:9092", c.clientProperties().getProperty("bootstrap.servers"));
    assertEquals("PLAIN", c.clientProperties().getProperty("sasl.mechanism"));
    assertEquals("3000", c.adminProperties().getProperty("default.api.timeout.ms"));
    assertEquals(
        "flag:9092", KafkaConnection.of("flag:9092", c.clientProperties()).bootstrapServers());
  }

  @Test
  void theUserComesFromTheJaasConfigAndNoSecretIsPrinted() throws Exception {
    Path f =
        file(
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\"alice\" password=\"s3cret\";\n");
    KafkaConnection c = KafkaConnection.resolveOrDefault("b:9092", f, Map.of(), T);
    assertEquals(Optional.of("alice"), c.user());
    assertFalse(c.toString().contains("s3cret"), c.toString());
    assertTrue(c.toString().contains("sasl.jaas.config"), c.toString());
  }

  @Test
  void aMissingFileIsOneErrorTypeWithTheFlagToCheck() {
    Path missing = dir.resolve("nope.properties");
    KafkaAccessException e =
        assertThrows(
            KafkaAccessException.class,
            () -> KafkaConnection.resolveOrDefault(null, missing, Map.of(), T));
    assertEquals(
        "cannot read the Kafka client properties "
            + missing
            + ": no such file; check --kafka-config",
        e.getMessage());
  }

  @Test
  void nothingListeningIsSaidAtOnceWithTheAddressAndWhereItCameFrom() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    KafkaConnection c = KafkaConnection.resolveOrDefault("127.0.0.1:" + port, null, Map.of(), T);
    KafkaAccessException e =
        assertThrows(KafkaAccessException.class, () -> KafkaPreflight.check(c));
    assertTrue(
        e.getMessage()
            .startsWith(
                "no Kafka broker at 127.0.0.1:"
                    + port
                    + " (from --bootstrap-server): 127.0.0.1:"
                    + port
                    + " refused the connection (nothing listens there). Check the address and port"),
        e.getMessage());
    KafkaAccessException unknown =
        assertThrows(
            KafkaAccessException.class,
            () ->
                KafkaPreflight.check(
                    KafkaConnection.resolveOrDefault(
                        "no-such-host.invalid:9092", null, Map.of(), T)));
    assertTrue(
        unknown.getMessage().contains("no-such-host.invalid is an unknown host name"),
        unknown.getMessage());
  }
}
