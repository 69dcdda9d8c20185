package io.tpotstream.proxy;

import static io.tpotstream.producer.testing.ScriptedServer.FINISH;
import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.http.ClientTls;
import io.tpotstream.producer.http.TlsFiles;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TestPki;
import io.tpotstream.proxy.http.ExchangeObserver;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.tpotstream.testkit.LogCapture;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * TLS on both sides, with a private CA made in the test: the proxy serves HTTPS with its own
 * certificate and key (PEM), and reaches an https upstream whose private CA it is told to trust; an
 * upstream it was not told to trust is refused as unreachable, never trusted by default; it shows a
 * client certificate to an upstream that requires one; an insecure upstream is served with a
 * warning.
 */
class TlsTest {
  private static final String BODY = "{\"model\":\"m\",\"stream\":true,\"messages\":[]}";

  /** One POST through {@code proxy} over HTTPS, trusting {@code proxyCa}: status and body. */
  private static String[] post(TpotProxy proxy, Path proxyCa) throws Exception {
    return post(proxy, proxyCa, null);
  }

  /** The same, showing {@code clientCertificate} (null: none) to the proxy. */
  private static String[] post(TpotProxy proxy, Path proxyCa, TlsFiles clientCertificate)
      throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      HttpClientOptions options =
          new HttpClientOptions()
              .setSsl(true)
              .setVerifyHost(true) // the certificate names 127.0.0.1 too
              .setTrustOptions(new PemTrustOptions().addCertPath(proxyCa.toString()));
      if (clientCertificate != null) {
        clientCertificate.applyTo(options);
      }
      HttpClient client = vertx.createHttpClient(options);
      return client
          .request(
              new RequestOptions()
                  .setMethod(HttpMethod.POST)
                  .setHost("127.0.0.1")
                  .setPort(proxy.port())
                  .setURI("/v1/chat/completions")
                  .putHeader("Content-Type", "application/json"))
          .compose(req -> req.send(Buffer.buffer(BODY)))
          .compose(
              (HttpClientResponse r) ->
                  r.body().map(b -> new String[] {Integer.toString(r.statusCode()), b.toString()}))
          .toCompletionStage()
          .toCompletableFuture()
          .get(20, TimeUnit.SECONDS);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static final Script STREAM =
      Script.sse()
          .write("data: " + ROLE + "\n\n")
          .write("data: " + content("a") + "\n\n")
          .write("data: " + FINISH + "\n\ndata: [DONE]\n\n");

  /**
   * Starts a proxy to {@code upstream} serving HTTPS with {@code own}, its upstream TLS {@code
   * tls}.
   */
  private static TpotProxy proxy(ScriptedServer upstream, TlsFiles own, ClientTls tls) {
    ProxyConfig config =
        ProxyConfig.of(0, Upstream.parse("https://localhost:" + upstream.port()))
            .withMetricsPort(-1)
            .withListenTls(own)
            .withUpstreamTls(tls);
    return TpotProxy.start(
        config, new ProxyMetrics(), (request, route, startNs) -> ExchangeObserver.NONE);
  }

  private static ClientTls trusting(Path caFile) {
    return ClientTls.of(caFile, "--upstream-ca", null, null, false, Map.of());
  }

  @Test
  void httpsOnBothSidesWithAPrivateCaAndAnUntrustedUpstreamIsRefused() throws Exception {
    TestPki pki = TestPki.create();
    try (ScriptedServer upstream = new ScriptedServer(pki.server()).on("m", STREAM)) {
      try (TpotProxy trusting = proxy(upstream, pki.server(), trusting(pki.caFile()))) {
        assertTrue(trusting.baseUrl().startsWith("https://"), trusting.baseUrl());
        String[] answer = post(trusting, pki.caFile());
        assertEquals("200", answer[0]);
        assertTrue(answer[1].endsWith("data: [DONE]\n\n"), answer[1]);
      }

      try (TpotProxy untrusting = proxy(upstream, pki.server(), ClientTls.DEFAULT)) {
        String[] answer = post(untrusting, pki.caFile());
        assertEquals("502", answer[0], "the upstream's certificate is not trusted: " + answer[1]);
        assertTrue(
            answer[1].contains(
                "a certificate not signed by a CA the JVM trusts, or not issued for localhost;"
                    + " check the host, and for a private CA give its PEM bundle with"
                    + " --upstream-ca or SSL_CERT_FILE"),
            answer[1]);
      }
    }
  }

  @Test
  void anUpstreamRequiringClientCertificatesRefusesTheProxyWithoutOneAndServesItWithOne()
      throws Exception {
    TestPki pki = TestPki.create();
    try (ScriptedServer upstream =
        new ScriptedServer(pki.serverAskingForClients()).on("m", STREAM)) {
      try (TpotProxy without = proxy(upstream, pki.server(), trusting(pki.caFile()))) {
        String[] answer = post(without, pki.caFile());
        assertEquals("502", answer[0], answer[1]);
        assertTrue(
            answer[1].contains(
                "the server asks for a client certificate (mutual TLS) and none was given: give"
                    + " one and its key (PEM) with --upstream-client-cert and"
                    + " --upstream-client-key"),
            answer[1]);
      }
      ClientTls withCertificate =
          ClientTls.of(
              pki.caFile(),
              "--upstream-ca",
              pki.client().certFile(),
              pki.client().keyFile(),
              false,
              Map.of());
      try (TpotProxy with = proxy(upstream, pki.server(), withCertificate)) {
        String[] answer = post(with, pki.caFile());
        assertEquals("200", answer[0], answer[1]);
        assertTrue(answer[1].endsWith("data: [DONE]\n\n"), answer[1]);
      }
      assertEquals(1, upstream.received().size(), "only the request with a certificate arrived");
    }
  }

  @Test
  void anInsecureUpstreamIsServedWithAWarning() throws Exception {
    TestPki pki = TestPki.create();
    try (ScriptedServer upstream = new ScriptedServer(pki.server()).on("m", STREAM);
        LogCapture logs = LogCapture.begin()) {
      ClientTls insecure = ClientTls.of(null, null, null, null, true, Map.of());
      try (TpotProxy proxy = proxy(upstream, pki.server(), insecure)) {
        String[] answer = post(proxy, pki.caFile());
        assertEquals("200", answer[0], answer[1]);
      }
      String warning =
          "TLS VERIFICATION IS OFF for https://localhost:" + upstream.port() + " (insecure)";
      assertEquals(
          1, logs.lines().stream().filter(l -> l.contains(warning)).count(), "" + logs.lines());
    }
  }

  @Test
  void aCertificateWithoutItsKeyIsRefused() {
    TestPki pki = TestPki.create();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TlsFiles(null, pki.server().certFile(), null));
    assertTrue(e.getMessage().startsWith("a certificate needs its private key"), e.getMessage());
  }

  @Test
  void theListenersClientCertificateCheckFollowsClientAuth() throws Exception {
    TestPki pki = TestPki.create();
    try (ScriptedServer upstream = new ScriptedServer().on("m", STREAM)) {
      Upstream plain = Upstream.parse(upstream.baseUrl());
      ProxyConfig asking =
          ProxyConfig.of(0, plain).withMetricsPort(-1).withListenTls(pki.serverAskingForClients());
      try (TpotProxy required =
          TpotProxy.start(
              asking.withClientAuth(ClientAuth.REQUIRED),
              new ProxyMetrics(),
              (request, route, startNs) -> ExchangeObserver.NONE)) {
        assertThrows(Exception.class, () -> post(required, pki.caFile()), "no certificate");
        assertEquals("200", post(required, pki.caFile(), pki.client())[0]);
      }
      try (TpotProxy requested =
          TpotProxy.start(
              asking.withClientAuth(ClientAuth.REQUEST),
              new ProxyMetrics(),
              (request, route, startNs) -> ExchangeObserver.NONE)) {
        assertEquals("200", post(requested, pki.caFile())[0], "a certificate is optional");
        assertEquals("200", post(requested, pki.caFile(), pki.client())[0]);
      }
      IllegalArgumentException noCa =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  ProxyConfig.of(0, plain)
                      .withListenTls(pki.server())
                      .withClientAuth(ProxyConfig.clientAuth("required", false)));
      assertEquals(
          "--client-auth required checks client certificates against a CA: give it with"
              + " --tls-client-ca (and serve HTTPS with --tls-cert and --tls-key)",
          noCa.getMessage());
      assertEquals(ClientAuth.REQUIRED, ProxyConfig.clientAuth(null, true));
      assertEquals(ClientAuth.NONE, ProxyConfig.clientAuth(null, false));
    }
  }
}
