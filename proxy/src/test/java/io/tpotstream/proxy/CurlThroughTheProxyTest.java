package io.tpotstream.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.proxy.http.ObserverFactory;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A real client, curl, through the proxy and directly against the same server (a {@link
 * RawUpstream} that writes every byte itself): {@code --http1.0} on a stream, {@code --http2} on
 * http:// (an h2c offer), a DELETE answered 204 and a HEAD print the same through the proxy as
 * directly, apart from the hop-by-hop {@code Connection} and {@code Keep-Alive} lines and the
 * framing of a body the upstream ends by closing (chunked to an HTTP/1.1 client through the proxy).
 * Slow: it starts processes.
 */
@Tag("slow")
class CurlThroughTheProxyTest {
  /** A correct server: streams to an HTTP/1.1 peer chunked, to an HTTP/1.0 one until the close. */
  private static boolean answer(RawUpstream.Conversation c) throws Exception {
    c.body();
    boolean http10 = c.head.http10();
    switch (c.head.method()) {
      case "DELETE" -> {
        c.write(c.head.version() + " 204 No Content\r\nX-Deleted: file-1\r\n\r\n");
        return !http10;
      }
      case "HEAD" -> {
        c.write(
            c.head.version()
                + " 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n");
        return !http10;
      }
      default -> {
        StringBuilder head = new StringBuilder(c.head.version() + " 200 OK\r\n");
        head.append("Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n");
        head.append(http10 ? "\r\n" : "Transfer-Encoding: chunked\r\n\r\n");
        c.write(head.toString());
        for (int i = 0; i < 32; i++) {
          String event = "data: {\"n\":" + i + "}\n\n";
          c.write(http10 ? event : Integer.toHexString(event.length()) + "\r\n" + event + "\r\n");
        }
        if (!http10) {
          c.write("0\r\n\r\n");
        }
        return !http10;
      }
    }
  }

  /** curl's whole output ({@code -i}: status, headers, body), without hop-by-hop lines. */
  private static List<String> curl(int port, String... options) throws Exception {
    List<String> command = new ArrayList<>(List.of("curl", "-sS", "-i", "-N", "--max-time", "20"));
    command.addAll(List.of(options));
    command.add("http://127.0.0.1:" + port + "/v1/chat/completions");
    Process curl = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(curl.getInputStream(), StandardCharsets.ISO_8859_1))) {
      String line;
      while ((line = out.readLine()) != null) {
        String lower = line.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("connection:") && !lower.startsWith("keep-alive:")) {
          lines.add(line);
        }
      }
    }
    assertTrue(curl.waitFor(30, TimeUnit.SECONDS), "curl ended");
    assertEquals(0, curl.exitValue(), String.join("\n", lines));
    return lines;
  }

  @Test
  void curlReadsTheSameThroughTheProxyAsDirectly() throws Exception {
    try (RawUpstream upstream = new RawUpstream(CurlThroughTheProxyTest::answer);
        TpotProxy proxy =
            TpotProxy.start(
                ProxyConfig.of(0, Upstream.parse(upstream.baseUrl()))
                    .withMetricsPort(-1)
                    .withEventLoops(1)
                    .withDrainTimeout(Duration.ZERO),
                new ProxyMetrics(),
                ObserverFactory.NONE)) {
      List<String> http10 = curl(proxy.port(), "--http1.0");
      assertEquals(curl(upstream.port(), "--http1.0"), http10);
      assertEquals("HTTP/1.0 200 OK", http10.get(0));
      assertEquals(32, http10.stream().filter(l -> l.startsWith("data: ")).count());

      List<String> h2c = curl(proxy.port(), "--http2");
      List<String> h2cDirect = curl(upstream.port(), "--http2");
      assertEquals("HTTP/1.1 200 OK", h2c.get(0), "answered over HTTP/1.1");
      assertEquals(h2cDirect, h2c);

      List<String> deleted = curl(proxy.port(), "-X", "DELETE");
      assertEquals(curl(upstream.port(), "-X", "DELETE"), deleted);
      assertEquals("HTTP/1.1 204 No Content", deleted.get(0));

      List<String> head = curl(proxy.port(), "-I");
      assertEquals(curl(upstream.port(), "-I"), head);
      assertTrue(head.contains("Content-Length: 17"), head.toString());
    }
  }

  @Test
  void curlOnHttp10SeesEachEventBeforeTheNextIsSent() throws Exception {
    CountDownLatch firstSeen = new CountDownLatch(1);
    try (RawUpstream upstream =
            new RawUpstream(
                c -> {
                  c.write(
                      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                          + "Transfer-Encoding: chunked\r\n\r\n");
                  c.write("f\r\ndata: {\"n\":1}\n\n\r\n");
                  assertTrue(firstSeen.await(20, TimeUnit.SECONDS));
                  c.write("f\r\ndata: {\"n\":2}\n\n\r\n0\r\n\r\n");
                  return true;
                });
        TpotProxy proxy =
            TpotProxy.start(
                ProxyConfig.of(0, Upstream.parse(upstream.baseUrl()))
                    .withMetricsPort(-1)
                    .withEventLoops(1)
                    .withDrainTimeout(Duration.ZERO),
                new ProxyMetrics(),
                ObserverFactory.NONE)) {
      Process curl =
          new ProcessBuilder(
                  "curl",
                  "-sS",
                  "-N",
                  "--http1.0",
                  "--max-time",
                  "20",
                  "http://127.0.0.1:" + proxy.port() + "/v1/chat/completions")
              .redirectErrorStream(true)
              .start();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(curl.getInputStream(), StandardCharsets.UTF_8))) {
        assertEquals("data: {\"n\":1}", out.readLine());
        firstSeen.countDown();
        assertEquals("", out.readLine());
        assertEquals("data: {\"n\":2}", out.readLine());
        assertEquals("", out.readLine());
        assertEquals(null, out.readLine(), "the stream ends with the close");
      } catch (IOException | AssertionError e) {
        firstSeen.countDown();
        throw e;
      }
      assertTrue(curl.waitFor(30, TimeUnit.SECONDS));
      assertEquals(0, curl.exitValue());
    }
  }
}
