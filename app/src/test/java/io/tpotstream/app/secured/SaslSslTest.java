package io.tpotstream.app.secured;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.app.cli.Tpot;
import io.tpotstream.archive.ArchiveReader;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The same secured broker through its SASL_SSL listener (PLAIN over TLS, a key store made by the
 * test with keytool): the user's properties file with a trust store is all a command needs, and a
 * trust store that does not hold the broker's certificate is named in one line.
 */
@Tag("slow")
class SaslSslTest {
  @TempDir Path dir;

  record Result(int exit, String err) {}

  static Result tpot(String... args) {
    CommandLine tpot = Tpot.commandLine();
    StringWriter err = new StringWriter();
    tpot.setOut(new PrintWriter(new StringWriter()));
    tpot.setErr(new PrintWriter(err));
    return new Result(tpot.execute(args), err.toString());
  }

  @Test
  void produceAndExportOverSaslSslWithTheUsersTrustStore() throws Exception {
    SecuredCluster.broker();
    Path client =
        SecuredCluster.tlsPropertiesFile(
            dir, "tls.properties", SecuredCluster.stores().resolve("truststore.p12"));
    try (Simulator simulator =
        Simulator.start(SimulatorConfig.defaults().withPort(0).withSeed(5L).withEventLoops(1))) {
      Path config = dir.resolve("producer.json");
      Files.writeString(
          config,
          """
          {"base_url": "%s", "api_key": "sim", "models": ["model-a"], "concurrency": 2,
           "total_requests": 2, "max_tokens": 10, "prompt": "hi", "timeout": 30}
          """
              .formatted(simulator.baseUrl()));
      Result produced =
          tpot(
              "produce",
              "--config",
              config.toString(),
              "--command-config",
              client.toString(),
              "--topic",
              "tpot.tls-events");
      assertEquals(0, produced.exit(), produced.err());
    }
    Path archive = dir.resolve("tls.jsonl");
    Result exported =
        tpot(
            "export",
            "--command-config",
            client.toString(),
            "--topic",
            "tpot.tls-events",
            "--out",
            archive.toString());
    assertEquals(0, exported.exit(), exported.err());
    long records = ArchiveReader.readInReplayOrder(archive, (line, reason) -> {}).size();
    assertEquals(SecuredCluster.records("tpot.tls-events"), records);
    // 2 requests × (start + 10 tokens + end), plus heartbeats
    assertTrue(records > 2 * 12, "records: " + records);
  }

  @Test
  void aTrustStoreWithoutTheBrokersCertificateIsNamed() throws Exception {
    SecuredCluster.broker();
    Path other = dir.resolve("other.p12");
    SecuredCluster.keyPair("other", other);
    Path otherTrust = dir.resolve("other-trust.p12");
    SecuredCluster.trustStore(other, "other", otherTrust);
    Path client = SecuredCluster.tlsPropertiesFile(dir, "untrusted.properties", otherTrust);
    Result r =
        tpot("export", "--command-config", client.toString(), "--out", dir.resolve("x").toString());
    assertEquals(2, r.exit(), r.err());
    assertTrue(
        r.err().startsWith("tpot export: TLS handshake with 127.0.0.1:")
            && r.err().contains("check ssl.truststore.location and ssl.truststore.password")
            && r.err().contains(client.toString()),
        r.err());
  }
}
