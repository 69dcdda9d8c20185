package io.tpotstream.producer.http;

import static io.tpotstream.producer.testing.ScriptedServer.openAiStream;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TestPki;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.LogCapture;
import io.tpotstream.testkit.TestKafka;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An endpoint behind a private CA, made in the test: without its CA the run stops at once with the
 * TLS message; with the CA from {@code ca_file} or {@code SSL_CERT_FILE} it measures; {@code
 * insecure} measures with a warning; a server that requires client certificates refuses a run
 * without one and serves one with {@code client_cert} and {@code client_key}.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class PrivateCaTest {
  private static final int REQUESTS = 6;
  private static final int TOKENS = 5;

  /** The config of {@code REQUESTS} requests to {@code server} over https, with {@code keys}. */
  private static ProducerConfig config(
      ScriptedServer server, Map<String, String> keys, Map<String, String> env) {
    Map<String, String> all = new LinkedHashMap<>();
    all.put("base_url", server.httpsUrl());
    all.put("models", "m");
    all.put("concurrency", "2");
    all.put("total_requests", Integer.toString(REQUESTS));
    all.putAll(keys);
    return Runs.config(all, env);
  }

  private static ScriptedServer streaming(ScriptedServer server) {
    return server.on("m", Script.sse().write(openAiStream(TOKENS)));
  }

  /** Every request completed, each with {@code TOKENS - 1} gaps, and reached the server. */
  private static void assertMeasured(ScriptedServer server, RunResult result) {
    assertNull(result.stoppedBy());
    ModelResult m = result.models().get(0);
    assertEquals(REQUESTS, m.completed());
    assertEquals(0, m.failed(), "errors: " + m.errors());
    assertEquals(REQUESTS * (TOKENS - 1), m.tpot().count());
    assertEquals(REQUESTS * TOKENS, m.outputTokens());
    assertEquals(REQUESTS, server.received().size());
  }

  @Test
  void withoutItsCaTheRunStopsAtOnceNamingTheWaysToGiveIt(TestKafka kafka) {
    TestPki pki = TestPki.create();
    try (ScriptedServer server = streaming(new ScriptedServer(pki.server()))) {
      RunResult result = Runs.run(kafka, config(server, Map.of(), Map.of())).result();
      assertEquals(0, server.received().size(), "no request gets past the handshake");
      RequestFailure why = result.stoppedBy();
      assertTrue(why.permanent());
      assertTrue(
          why.message()
              .startsWith(
                  "TLS handshake with 127.0.0.1:"
                      + server.port()
                      + " failed: the server's certificate was refused ("),
          why.message());
      assertTrue(
          why.message()
              .endsWith(
                  "a certificate not signed by a CA the JVM trusts, or not issued for 127.0.0.1;"
                      + " check the host, and for a private CA give its PEM bundle with ca_file"
                      + " (--ca-file) or SSL_CERT_FILE"),
          why.message());
    }
  }

  @Test
  void anotherCasBundleIsNamedInTheMessage(TestKafka kafka) {
    TestPki pki = TestPki.create();
    TestPki other = TestPki.create();
    try (ScriptedServer server = streaming(new ScriptedServer(pki.server()))) {
      Map<String, String> keys = Map.of("ca_file", other.caFile().toString());
      RunResult result = Runs.run(kafka, config(server, keys, Map.of())).result();
      assertEquals(0, server.received().size());
      assertTrue(
          result
              .stoppedBy()
              .message()
              .endsWith(
                  "a certificate not signed by a CA in "
                      + other.caFile()
                      + " (from config key 'ca_file'), or not issued for 127.0.0.1; check the host"
                      + " and that this bundle holds the CA that signed the server's certificate"),
          result.stoppedBy().message());
    }
  }

  @Test
  void theCaFromConfigKeyCaFileIsTrusted(TestKafka kafka) {
    TestPki pki = TestPki.create();
    try (ScriptedServer server = streaming(new ScriptedServer(pki.server()))) {
      Map<String, String> keys = Map.of("ca_file", pki.caFile().toString());
      assertMeasured(server, Runs.run(kafka, config(server, keys, Map.of())).result());
    }
  }

  @Test
  void theCaFromSslCertFileIsTrusted(TestKafka kafka) {
    TestPki pki = TestPki.create();
    try (ScriptedServer server = streaming(new ScriptedServer(pki.server()))) {
      Map<String, String> env = Map.of("SSL_CERT_FILE", pki.caFile().toString());
      assertMeasured(server, Runs.run(kafka, config(server, Map.of(), env)).result());
    }
  }

  @Test
  void insecureMeasuresAndWarnsAtLoadAndOnTheRun(TestKafka kafka) {
    TestPki pki = TestPki.create();
    try (ScriptedServer server = streaming(new ScriptedServer(pki.server()));
        LogCapture logs = LogCapture.begin()) {
      List<String> warnings = new ArrayList<>();
      ProducerConfig config =
          ConfigLoader.load(
              null,
              Map.of(
                  "base_url", server.httpsUrl(),
                  "models", "m",
                  "concurrency", "2",
                  "total_requests", Integer.toString(REQUESTS),
                  "warmup", "0",
                  "insecure", "true"),
              Map.of(),
              warnings::add);
      String warning =
          "TLS VERIFICATION IS OFF for "
              + server.httpsUrl()
              + "/v1 (insecure): any server, or anyone on the way, can answer in its place; trust"
              + " its CA instead (a PEM bundle)";
      assertEquals(List.of(warning), warnings);

      assertMeasured(server, Runs.run(kafka, config).result());
      String onRun =
          "run "
              + config.runId()
              + ": TLS VERIFICATION IS OFF for "
              + server.httpsUrl()
              + "/v1/chat/completions (insecure)";
      assertEquals(
          1,
          logs.lines().stream().filter(l -> l.contains(onRun)).count(),
          "one warning line per run: " + logs.lines());
    }
  }

  @Test
  void aServerRequiringClientCertificatesRefusesARunWithoutOne(TestKafka kafka) {
    TestPki pki = TestPki.create();
    try (ScriptedServer server = streaming(new ScriptedServer(pki.serverAskingForClients()))) {
      Map<String, String> keys = Map.of("ca_file", pki.caFile().toString());
      RunResult result = Runs.run(kafka, config(server, keys, Map.of())).result();
      assertEquals(0, server.received().size());
      RequestFailure why = result.stoppedBy();
      assertTrue(why.permanent(), why.message());
      // the alert's name is the server's choice (bad_certificate from the JDK's TLS 1.3)
      assertTrue(
          why.message()
              .startsWith(
                  "TLS with 127.0.0.1:" + server.port() + " failed (Received fatal alert: "),
          why.message());
      assertTrue(
          why.message()
              .endsWith(
                  "): the server asks for a client certificate (mutual TLS) and none was given:"
                      + " give one and its key (PEM) with client_cert and client_key"
                      + " (--client-cert, --client-key)"),
          why.message());
    }
  }

  @Test
  void aServerRequiringClientCertificatesServesOneWithItsCertificate(TestKafka kafka) {
    TestPki pki = TestPki.create();
    try (ScriptedServer server = streaming(new ScriptedServer(pki.serverAskingForClients()))) {
      Map<String, String> keys =
          Map.of(
              "ca_file", pki.caFile().toString(),
              "client_cert", pki.client().certFile().toString(),
              "client_key", pki.client().keyFile().toString());
      assertMeasured(server, Runs.run(kafka, config(server, keys, Map.of())).result());
    }
  }
}
