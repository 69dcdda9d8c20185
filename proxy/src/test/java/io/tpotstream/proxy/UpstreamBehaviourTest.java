package io.tpotstream.proxy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.proxy.http.ObserverFactory;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The proxy against a real HTTP server whose behaviour each test scripts: what the upstream
 * receives, chunks passing one by one (causally: the upstream sends the second chunk only after the
 * client has read the first), and the proxy's own 502 and 504 answers.
 */
class UpstreamBehaviourTest {
  private static Vertx vertx;
  private static HttpServer upstream;
  private static volatile Consumer<HttpServerRequest> script;

  @BeforeAll
  static void start() throws Exception {
    vertx = Vertx.vertx();
    upstream =
        vertx
            .createHttpServer()
            .requestHandler(r -> script.accept(r))
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() {
    vertx.close();
  }

  private static TpotProxy proxyTo(String url, Duration idleTimeout) {
    return TpotProxy.start(
        ProxyConfig.of(0, Upstream.parse(url))
            .withMetricsPort(-1)
            .withEventLoops(1)
            .withTimeouts(
                Duration.ofSeconds(2), idleTimeout == null ? Duration.ofSeconds(10) : idleTimeout)
            .withDrainTimeout(Duration.ZERO),
        new ProxyMetrics(),
        ObserverFactory.NONE);
  }

  @Test
  void theUpstreamReceivesTheRequestAsSentExceptHostAndHopByHopHeaders() throws Exception {
    CompletableFuture<List<String>> headers = new CompletableFuture<>();
    CompletableFuture<byte[]> body = new CompletableFuture<>();
    script =
        r -> {
          List<String> lines = new ArrayList<>();
          for (Map.Entry<String, String> h : r.headers()) {
            lines.add(h.getKey() + ": " + h.getValue());
          }
          headers.complete(lines);
          r.body()
              .onSuccess(
                  b -> {
                    body.complete(b.getBytes());
                    r.response().end("ok");
                  });
        };
    String json = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"content\":\"héllo\"}]}";
    try (TpotProxy proxy = proxyTo("http://127.0.0.1:" + upstream.actualPort() + "/base", null)) {
      RawHttp.Response response =
          RawHttp.exchange(
              proxy.port(),
              RawHttp.post(
                      "/v1/chat/completions?x=1", json, "Authorization: Bearer sk-abc", "X-App: a1")
                  .replace(
                      "Content-Type",
                      "Connection: keep-alive, X-Secret-Hop\r\nX-Secret-Hop: 1\r\nContent-Type"));
      assertEquals(200, response.status());
      assertEquals(
          List.of(
              "Host: 127.0.0.1:" + upstream.actualPort(),
              "Content-Type: application/json",
              "Authorization: Bearer sk-abc",
              "X-App: a1",
              "Content-Length: " + json.getBytes(StandardCharsets.UTF_8).length),
          headers.get(10, TimeUnit.SECONDS));
      assertArrayEquals(json.getBytes(StandardCharsets.UTF_8), body.get(10, TimeUnit.SECONDS));
    }
  }

  @Test
  void eachChunkReachesTheClientBeforeTheNextIsSent() throws Exception {
    CompletableFuture<Void> firstRead = new CompletableFuture<>();
    script =
        r -> {
          Context loop = Vertx.currentContext();
          r.response().setChunked(true).putHeader("Content-Type", "text/event-stream");
          r.response().write("data: {\"n\":1}\n\n");
          // the second chunk waits until the client has read the first through the proxy: a proxy
          // that held chunk 1 back would never see chunk 2 and the client would time out
          firstRead.thenRun(
              () ->
                  loop.runOnContext(
                      v -> {
                        r.response().write("data: {\"n\":2}\n\n");
                        r.response().end("data: [DONE]\n\n");
                      }));
        };
    try (TpotProxy proxy = proxyTo("http://127.0.0.1:" + upstream.actualPort(), null);
        RawHttp http = new RawHttp(proxy.port())) {
      http.write(RawHttp.post("/v1/chat/completions", "{\"stream\":true}"));
      assertEquals(200, http.readHead().status());
      assertEquals("data: {\"n\":1}\n\n", new String(http.readChunk(), StandardCharsets.UTF_8));
      firstRead.complete(null);
      StringBuilder rest = new StringBuilder();
      byte[] chunk;
      while ((chunk = http.readChunk()) != null) {
        rest.append(new String(chunk, StandardCharsets.UTF_8));
      }
      assertEquals("data: {\"n\":2}\n\ndata: [DONE]\n\n", rest.toString());
    }
  }

  @Test
  void anUnreachableUpstreamGets502WithAClearBodyInTheRoutesShape() throws Exception {
    int closedPort;
    try (ServerSocket s = new ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    try (TpotProxy proxy = proxyTo("http://127.0.0.1:" + closedPort, null)) {
      RawHttp.Response openAi =
          RawHttp.exchange(proxy.port(), RawHttp.post("/v1/chat/completions", "{}"));
      assertEquals(502, openAi.status());
      assertEquals("application/json", openAi.header("Content-Type"));
      assertEquals("upstream_unreachable", openAi.header("X-Tpot-Proxy-Error"));
      JsonNode error = Json.MAPPER.readTree(openAi.body()).path("error");
      assertTrue(
          error
              .path("message")
              .asText()
              .startsWith(
                  "tpot proxy: cannot connect to the upstream http://127.0.0.1:" + closedPort),
          error.toString());
      assertEquals("upstream_unreachable", error.path("code").asText());

      RawHttp.Response anthropic =
          RawHttp.exchange(proxy.port(), RawHttp.post("/v1/messages", "{}"));
      assertEquals(502, anthropic.status());
      JsonNode body = Json.MAPPER.readTree(anthropic.body());
      assertEquals("error", body.path("type").asText());
      assertEquals("api_error", body.path("error").path("type").asText());
    }
  }

  @Test
  void aSilentUpstreamGets504AfterTheIdleTimeout() throws Exception {
    script = r -> {}; // never answers
    try (TpotProxy proxy =
        proxyTo("http://127.0.0.1:" + upstream.actualPort(), Duration.ofMillis(300))) {
      RawHttp.Response r =
          RawHttp.exchange(proxy.port(), RawHttp.post("/v1/chat/completions", "{}"));
      assertEquals(504, r.status());
      assertEquals("upstream_timeout", r.header("X-Tpot-Proxy-Error"));
      assertTrue(
          Json.MAPPER
              .readTree(r.body())
              .path("error")
              .path("message")
              .asText()
              .contains("sent no response for 300 ms"),
          r.text());
    }
  }

  @Test
  void webSocketUpgradesAreRefusedWith501() {
    script = r -> r.response().end("should not get here");
    try (TpotProxy proxy = proxyTo("http://127.0.0.1:" + upstream.actualPort(), null)) {
      RawHttp.Response r =
          RawHttp.exchange(
              proxy.port(),
              RawHttp.get("/v1/realtime", "Upgrade: websocket", "Connection: Upgrade"));
      assertEquals(501, r.status());
      assertNull(r.header("Upgrade"));
      assertTrue(r.text().contains("not proxied"), r.text());
    }
  }
}
