package io.tpotstream.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.proxy.http.ExchangeObserver;
import io.tpotstream.proxy.http.ExchangeObserver.Failure;
import io.tpotstream.proxy.http.ObserverFactory;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * HTTP as clients speak it, through the proxy against a server that writes every byte itself: an
 * HTTP/1.0 client's stream arrives chunk by chunk and ends with the close; a 204 is answered; an
 * h2c offer is declined and the request answered over HTTP/1.1; a 100 Continue or a refusal comes
 * from the upstream; and the proxy's own limits: a client's head that trickles in and a kept-alive
 * connection left idle are closed after their timeouts, an exchange in progress never; a request
 * that waits in the proxy's own pool queue gets a 503 that names the queue, not the upstream.
 */
class HttpAsSpokenTest {
  private static TpotProxy proxy(RawUpstream upstream, UnaryOperator<ProxyConfig> settings) {
    return proxy(upstream, settings, new ProxyMetrics(), ObserverFactory.NONE);
  }

  private static TpotProxy proxy(
      RawUpstream upstream,
      UnaryOperator<ProxyConfig> settings,
      ProxyMetrics metrics,
      ObserverFactory observers) {
    return TpotProxy.start(
        settings.apply(
            ProxyConfig.of(0, Upstream.parse(upstream.baseUrl()))
                .withMetricsPort(0)
                .withEventLoops(1)
                .withDrainTimeout(Duration.ZERO)),
        metrics,
        observers);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }

  @Test
  void anHttp10ClientGetsTheStreamAsItArrivesEndedByTheClose() throws Exception {
    CountDownLatch firstRead = new CountDownLatch(1);
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  c.write(
                      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                          + "Transfer-Encoding: chunked\r\n\r\n");
                  c.write("f\r\ndata: {\"n\":1}\n\n\r\n");
                  // the second chunk only once the client has read the first through the proxy
                  assertTrue(firstRead.await(20, TimeUnit.SECONDS));
                  c.write("f\r\ndata: {\"n\":2}\n\n\r\n0\r\n\r\n");
                  return true;
                });
        TpotProxy proxy = proxy(upstream, c -> c);
        RawHttp http = new RawHttp(proxy.port())) {
      // an HTTP/1.0 client that asks for keep-alive: a body without a length still ends with the
      // close, and the response says nothing of keep-alive
      http.write("GET /v1/stream HTTP/1.0\r\nHost: a\r\nConnection: keep-alive\r\n\r\n");
      RawHttp.Response head = http.readHead();
      assertEquals("HTTP/1.0 200 OK", head.statusLine());
      assertEquals(List.of("Content-Type: text/event-stream"), head.headerLines());
      assertEquals("data: {\"n\":1}\n\n", text(http.readBytes(15)));
      firstRead.countDown();
      assertEquals("data: {\"n\":2}\n\n", text(http.readToEnd()), "then the close");
    }
  }

  @Test
  void anHttp10ClientThatLeavesMidStreamClosesTheUpstreamCallAndTheNextRequestIsServed()
      throws Exception {
    CompletableFuture<Boolean> upstreamSawTheClose = new CompletableFuture<>();
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  c.body();
                  if (c.head.target().equals("/v1/models")) {
                    c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                    return true;
                  }
                  c.write(
                      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                          + "Transfer-Encoding: chunked\r\n\r\nf\r\ndata: {\"n\":1}\n\n\r\n");
                  upstreamSawTheClose.complete(c.closedByClient());
                  return false;
                });
        TpotProxy proxy = proxy(upstream, c -> c)) {
      try (RawHttp http = new RawHttp(proxy.port())) {
        http.write("POST /v1/chat/completions HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}");
        assertEquals("HTTP/1.0 200 OK", http.readHead().statusLine());
        assertEquals("data: {\"n\":1}\n\n", text(http.readBytes(15)));
      }
      assertTrue(upstreamSawTheClose.get(20, TimeUnit.SECONDS), "the upstream call was closed");
      assertEquals("ok", RawHttp.exchange(proxy.port(), RawHttp.get("/v1/models")).text());
    }
  }

  @Test
  void aDeleteAnswered204IsAnsweredAndTheConnectionServesTheNextRequest() {
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  if (c.head.method().equals("DELETE")) {
                    c.write("HTTP/1.1 204 No Content\r\nX-Deleted: yes\r\n\r\n");
                  } else {
                    c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                  }
                  return true;
                });
        TpotProxy proxy = proxy(upstream, c -> c);
        RawHttp http = new RawHttp(proxy.port())) {
      RawHttp.Response deleted = http.send("DELETE /v1/files/file-1 HTTP/1.1\r\nHost: a\r\n\r\n");
      assertEquals("HTTP/1.1 204 No Content", deleted.statusLine());
      assertEquals(List.of("X-Deleted: yes"), deleted.headerLines());
      RawHttp.Response next = http.send(RawHttp.get("/v1/models"));
      assertEquals("ok", next.text());
    }
  }

  @Test
  void anH2cOfferIsDeclinedAndTheRequestAnsweredOverHttp11() throws Exception {
    CompletableFuture<List<String>> received = new CompletableFuture<>();
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  received.complete(c.head.headerLines());
                  c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                  return true;
                });
        TpotProxy proxy = proxy(upstream, c -> c)) {
      RawHttp.Response r =
          RawHttp.exchange(
              proxy.port(),
              RawHttp.get(
                  "/v1/models",
                  "Connection: Upgrade, HTTP2-Settings",
                  "Upgrade: h2c",
                  "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
                  "Accept: */*"));
      assertEquals("HTTP/1.1 200 OK", r.statusLine());
      assertEquals("ok", r.text());
      assertNull(r.header("Upgrade"));
      assertEquals(
          List.of("Host: 127.0.0.1:" + upstream.port(), "Accept: */*"),
          received.get(10, TimeUnit.SECONDS),
          "the offer is the client's connection's own: not forwarded");
    }
  }

  @Test
  void anUpstreamThatRefusesAnExpectedBodyIsHeardBeforeTheBodyIsSent() {
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  c.write(
                      "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 4\r\n"
                          + "Connection: close\r\n\r\nbig!");
                  return false;
                });
        TpotProxy proxy = proxy(upstream, c -> c);
        RawHttp http = new RawHttp(proxy.port())) {
      http.write(
          "POST /v1/files HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n"
              + "Expect: 100-continue\r\n\r\n");
      RawHttp.Response refused = http.read(false);
      assertEquals("HTTP/1.1 413 Payload Too Large", refused.statusLine());
      assertEquals("big!", refused.text());
    }
  }

  @Test
  void aClientWhoseHeadTricklesInIsClosedAfterTheHeaderTimeout() throws Exception {
    ProxyMetrics metrics = new ProxyMetrics();
    try (RawUpstream upstream = new RawUpstream(c -> false);
        TpotProxy proxy =
            proxy(
                upstream,
                c -> c.withClientTimeouts(Duration.ofMillis(300), Duration.ZERO),
                metrics,
                ObserverFactory.NONE);
        Socket socket = new Socket("127.0.0.1", proxy.port())) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write("GET /v1/models HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
      boolean closed = false;
      // slowloris: one byte of header every 20 ms, for up to 30 s, until the proxy closes
      for (int i = 0; i < 1500 && !closed; i++) {
        try {
          out.write('X');
          out.flush();
          Thread.sleep(20);
        } catch (IOException e) {
          closed = true;
        }
      }
      if (!closed) {
        closed = socket.getInputStream().read() == -1;
      }
      assertTrue(closed, "the proxy closed the connection");
      assertEquals(1.0, clientTimeouts(proxy, "header"));
    }
  }

  @Test
  void anIdleKeptAliveConnectionIsClosedButAnExchangeInProgressNever() throws Exception {
    ProxyMetrics metrics = new ProxyMetrics();
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  // the upstream thinks for twice the client idle timeout before answering
                  Thread.sleep(600);
                  c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                  return true;
                });
        TpotProxy proxy =
            proxy(
                upstream,
                c -> c.withClientTimeouts(Duration.ofSeconds(30), Duration.ofMillis(300)),
                metrics,
                ObserverFactory.NONE);
        RawHttp http = new RawHttp(proxy.port())) {
      assertEquals("ok", http.send(RawHttp.get("/v1/models")).text());
      InputStream in = http.input();
      assertEquals(-1, in.read(), "closed once idle for the client idle timeout");
      assertEquals(1.0, clientTimeouts(proxy, "idle"));
      assertEquals(0.0, clientTimeouts(proxy, "header"));
    }
  }

  @Test
  void aRequestThatWaitsInTheProxysOwnQueueGets503NamingTheQueue() throws Exception {
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Failure> failures = new CopyOnWriteArrayList<>();
    ObserverFactory recording =
        (request, route, startNs) ->
            new ExchangeObserver() {
              @Override
              public void failed(Failure failure, long atNs) {
                failures.add(failure);
              }
            };
    ProxyMetrics metrics = new ProxyMetrics();
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  // holds the proxy's only upstream connection until the test lets it go
                  arrived.countDown();
                  assertTrue(release.await(20, TimeUnit.SECONDS));
                  c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
                  return true;
                });
        TpotProxy proxy =
            proxy(
                upstream,
                c ->
                    c.withMaxConnectionsPerLoop(1)
                        .withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(30)),
                metrics,
                recording);
        RawHttp first = new RawHttp(proxy.port())) {
      first.write(RawHttp.get("/v1/models"));
      // the first request holds the connection once the upstream has it
      assertTrue(arrived.await(20, TimeUnit.SECONDS));
      RawHttp.Response queued = RawHttp.exchange(proxy.port(), RawHttp.get("/v1/models"));
      release.countDown();
      assertEquals("ok", first.read(false).text());

      assertEquals(503, queued.status());
      assertEquals("proxy_queue_timeout", queued.header("X-Tpot-Proxy-Error"));
      JsonNode error = Json.MAPPER.readTree(queued.body()).path("error");
      assertEquals("proxy_queue_timeout", error.path("code").asText());
      String message = error.path("message").asText();
      assertTrue(message.contains("all 1 upstream connections"), message);
      assertTrue(message.contains("raise --max-connections"), message);
      assertFalse(message.contains("check that it is up"), message);
      assertEquals(List.of(Failure.QUEUE_TIMEOUT), failures);
      assertEquals(0, metrics.queuedNow());
      String exported = metricsText(proxy);
      assertTrue(exported.contains("tpot_proxy_queue_timeouts_total 1.0"), exported);
    }
  }

  private static String metricsText(TpotProxy proxy) {
    return RawHttp.exchange(proxy.metricsPort(), RawHttp.get("/metrics")).text();
  }

  private static double clientTimeouts(TpotProxy proxy, String kind) {
    String prefix = "tpot_proxy_client_timeouts_total{kind=\"" + kind + "\"} ";
    return metricsText(proxy)
        .lines()
        .filter(l -> l.startsWith(prefix))
        .mapToDouble(l -> Double.parseDouble(l.substring(prefix.length())))
        .findFirst()
        .orElse(0);
  }
}
