package io.tpotstream.proxy;

import static io.tpotstream.producer.testing.ScriptedServer.FINISH;
import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.producer.http.TlsFiles;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.proxy.http.ExchangeObserver;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.SelfSignedCertificate;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * TLS on both sides, with certificates made in the test: the proxy serves HTTPS with its own
 * certificate and key (PEM), and reaches an https upstream whose private CA it is told to trust; an
 * upstream it was not told to trust is refused as unreachable, never trusted by default.
 */
class TlsTest {
  private static final String BODY = "{\"model\":\"m\",\"stream\":true,\"messages\":[]}";

  /** One POST through {@code proxy} over HTTPS, trusting {@code proxyCert}: status and body. */
  private static String[] post(TpotProxy proxy, String proxyCert) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      HttpClient client =
          vertx.createHttpClient(
              new HttpClientOptions()
                  .setSsl(true)
                  .setVerifyHost(
                      false) // the certificate names localhost, the proxy listens on an IP
                  .setTrustOptions(new PemTrustOptions().addCertPath(proxyCert)));
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

  @Test
  void httpsOnBothSidesWithAPrivateCaAndAnUntrustedUpstreamIsRefused() throws Exception {
    Script stream =
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .write("data: " + content("a") + "\n\n")
            .write("data: " + FINISH + "\n\ndata: [DONE]\n\n");
    SelfSignedCertificate own = SelfSignedCertificate.create("localhost");
    TlsFiles listen =
        new TlsFiles(null, Path.of(own.certificatePath()), Path.of(own.privateKeyPath()));
    try (ScriptedServer upstream = new ScriptedServer(true).on("m", stream)) {
      Upstream https = Upstream.parse("https://localhost:" + upstream.port());
      ProxyConfig config = ProxyConfig.of(0, https).withMetricsPort(-1).withListenTls(listen);

      try (TpotProxy trusting =
          TpotProxy.start(
              config.withUpstreamTls(new TlsFiles(Path.of(upstream.certificatePath()), null, null)),
              new ProxyMetrics(),
              (request, route, startNs) -> ExchangeObserver.NONE)) {
        assertTrue(trusting.baseUrl().startsWith("https://"), trusting.baseUrl());
        String[] answer = post(trusting, own.certificatePath());
        assertEquals("200", answer[0]);
        assertTrue(answer[1].endsWith("data: [DONE]\n\n"), answer[1]);
      }

      try (TpotProxy untrusting =
          TpotProxy.start(
              config, new ProxyMetrics(), (request, route, startNs) -> ExchangeObserver.NONE)) {
        String[] answer = post(untrusting, own.certificatePath());
        assertEquals("502", answer[0], "the upstream's certificate is not trusted: " + answer[1]);
      }
    }
  }

  @Test
  void aCertificateWithoutItsKeyIsRefused() {
    SelfSignedCertificate own = SelfSignedCertificate.create("localhost");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new TlsFiles(null, Path.of(own.certificatePath()), null));
    assertTrue(e.getMessage().startsWith("a certificate needs its private key"), e.getMessage());
  }
}
