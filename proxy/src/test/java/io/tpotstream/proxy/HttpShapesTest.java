package io.tpotstream.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.proxy.http.ObserverFactory;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The proxy driven by a table of request and response shapes, generated: every HTTP version a
 * client speaks (1.0, 1.1), method (GET, POST, HEAD, DELETE, OPTIONS), status (200, 204, 304, 404,
 * 500, and a 200 after {@code Expect: 100-continue}), framing the upstream chooses (Content-Length,
 * chunked, the end of the connection), with an encoding (identity or gzip) and a body size (0,
 * small, 300 KB) drawn per row. Each row's response, read by a plain-socket client through the
 * proxy, is compared with the response the same client reads directly from the same upstream, a
 * server that writes every byte itself ({@link RawUpstream}) and frames as a correct server would
 * for the version it is spoken to (an HTTP/1.0 request gets a body that ends with the connection,
 * never chunked).
 *
 * <p>What is normalised, and why, is only this: the {@code Connection} and {@code Keep-Alive}
 * header lines are left out on both sides (hop-by-hop: each connection's own, e.g. the upstream
 * closing its connection to the proxy while the proxy keeps the client's); chunked bodies are
 * compared de-chunked (chunk sizes follow the reads, not the content); and where the upstream ended
 * the body of an HTTP/1.1 response by closing the connection, the proxy's response to an HTTP/1.1
 * client carries {@code Transfer-Encoding: chunked} instead (so the client's connection lives on),
 * which is the one header line allowed on the proxied side only; and a HEAD response's {@code
 * Transfer-Encoding: chunked} (optional, RFC 9112 section 6.1) is left out of the direct side,
 * since Netty's HTTP decoder drops it from the response the proxy reads. Status line, reason
 * phrase, every other header line in its order and the body bytes must be identical. The HTTP/1.1
 * rows go through the proxy on one client connection, so a response framed wrongly breaks every row
 * after it.
 */
class HttpShapesTest {
  private static final List<String> VERSIONS = List.of("HTTP/1.0", "HTTP/1.1");
  private static final List<String> METHODS = List.of("GET", "POST", "HEAD", "DELETE", "OPTIONS");

  /** 100 stands for a POST with {@code Expect: 100-continue}, answered 100 and then 200. */
  private static final List<Integer> STATUSES = List.of(200, 204, 304, 404, 500, 100);

  private static final List<Integer> SIZES = List.of(0, 137, 300_000);

  enum Framing {
    LENGTH,
    CHUNKED,
    CLOSE
  }

  record Shape(
      int row, String version, String method, int status, Framing framing, boolean gzip, int size) {
    boolean expectContinue() {
      return status == 100;
    }

    int finalStatus() {
      return status == 100 ? 200 : status;
    }

    /** The request line and headers (and body) the client sends. */
    String requestHead() {
      StringBuilder b = new StringBuilder();
      b.append(method).append(" /shapes/").append(row).append(" ").append(version).append("\r\n");
      b.append("Host: shapes.example\r\nX-Row: ").append(row).append("\r\n");
      if (method.equals("POST")) {
        b.append("Content-Type: application/json\r\n");
        b.append("Content-Length: ").append(requestBody().length).append("\r\n");
        if (expectContinue()) {
          b.append("Expect: 100-continue\r\n");
        }
      }
      return b.append("\r\n").toString();
    }

    byte[] requestBody() {
      return method.equals("POST")
          ? ("{\"row\":" + row + ",\"stream\":false}").getBytes(StandardCharsets.UTF_8)
          : new byte[0];
    }

    @Override
    public String toString() {
      return "row "
          + row
          + ": "
          + version
          + " "
          + method
          + " -> "
          + (expectContinue() ? "100-continue then 200" : status)
          + ", "
          + framing
          + ", "
          + (gzip ? "gzip" : "identity")
          + ", "
          + size
          + " bytes";
    }
  }

  /** The table: every version, method, status and framing; encoding and size drawn per row. */
  static List<Shape> shapes() {
    Random random = new Random(49);
    List<Shape> shapes = new ArrayList<>();
    for (String version : VERSIONS) {
      for (String method : METHODS) {
        for (int status : STATUSES) {
          if (status == 100 && (!method.equals("POST") || version.equals("HTTP/1.0"))) {
            continue; // a 1.0 client knows no 100-continue; only a request with a body waits
          }
          for (Framing framing : Framing.values()) {
            int size = SIZES.get(random.nextInt(SIZES.size()));
            shapes.add(
                new Shape(
                    shapes.size(), version, method, status, framing, random.nextBoolean(), size));
          }
        }
      }
    }
    return shapes;
  }

  private static final Map<Integer, Shape> BY_ROW = new ConcurrentHashMap<>();

  /** The upstream's answer to a row: what a correct HTTP/1.x server sends for that shape. */
  private static boolean answer(RawUpstream.Conversation c) throws Exception {
    Shape shape = BY_ROW.get(Integer.parseInt(c.head.header("X-Row")));
    String version = c.head.version();
    if (c.head.header("Expect") != null) {
      c.write(version + " 100 Continue\r\n\r\n");
    }
    c.body();
    int status = shape.finalStatus();
    boolean head = c.head.method().equals("HEAD");
    boolean noBody = status == 204 || status == 304;
    byte[] body = body(shape);
    Framing framing = shape.framing();
    if (framing == Framing.CHUNKED && c.head.http10()) {
      framing = Framing.CLOSE; // no chunked encoding for an HTTP/1.0 client
    }
    boolean close = c.head.http10() || (framing == Framing.CLOSE && !noBody);
    StringBuilder h = new StringBuilder();
    h.append(version).append(' ').append(status).append(' ').append(reason(status)).append("\r\n");
    h.append("Content-Type: text/plain; charset=utf-8\r\n");
    h.append("X-Row: ").append(shape.row()).append("\r\n");
    if (shape.gzip() && !noBody) {
      h.append("Content-Encoding: gzip\r\n");
    }
    h.append("Cache-Control: no-store\r\n");
    if (!noBody) {
      if (framing == Framing.LENGTH) {
        h.append("Content-Length: ").append(body.length).append("\r\n");
      } else if (framing == Framing.CHUNKED) {
        h.append("Transfer-Encoding: chunked\r\n");
      }
    }
    if (close && !c.head.http10()) {
      h.append("Connection: close\r\n");
    }
    h.append("X-After-Framing: yes\r\n\r\n");
    c.write(h.toString());
    if (head || noBody) {
      return !close;
    }
    if (framing == Framing.CHUNKED) {
      int third = Math.max(1, body.length / 3);
      for (int at = 0; at < body.length; at += third) {
        int n = Math.min(third, body.length - at);
        c.write(Integer.toHexString(n) + "\r\n");
        c.write(Arrays.copyOfRange(body, at, at + n));
        c.write("\r\n");
      }
      c.write("0\r\n\r\n");
    } else {
      c.write(body);
    }
    return !close;
  }

  private static byte[] body(Shape shape) {
    StringBuilder text = new StringBuilder();
    while (text.length() < shape.size()) {
      text.append("row ").append(shape.row()).append(" line ").append(text.length()).append('\n');
    }
    byte[] plain = text.substring(0, shape.size()).getBytes(StandardCharsets.UTF_8);
    if (!shape.gzip()) {
      return plain;
    }
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(zipped)) {
      gzip.write(plain);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return zipped.toByteArray();
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 204 -> "No Content";
      case 304 -> "Not Modified";
      case 404 -> "Not Found";
      default -> "Internal Server Error";
    };
  }

  /** Sends the row's request on {@code http} (answering a 100 Continue) and reads the answer. */
  private static RawHttp.Response exchange(RawHttp http, Shape shape) {
    http.write(shape.requestHead());
    String interim = "";
    if (shape.expectContinue()) {
      RawHttp.Response cont = http.readHead();
      interim = cont.statusLine() + cont.headerLines() + "\n";
    }
    if (shape.requestBody().length > 0) {
      http.write(new String(shape.requestBody(), StandardCharsets.ISO_8859_1));
    }
    RawHttp.Response r = http.read(shape.method().equals("HEAD"));
    return new RawHttp.Response(interim + r.statusLine(), r.headerLines(), r.body(), r.complete());
  }

  /** What must be equal both ways, as one comparable text (the body as its bytes' hash). */
  private static String seen(RawHttp.Response r, boolean dropChunked) {
    List<String> lines = new ArrayList<>(r.headersWithout("connection", "keep-alive"));
    if (dropChunked) {
      lines.removeIf(l -> l.equalsIgnoreCase("Transfer-Encoding: chunked"));
    }
    return r.statusLine()
        + "\n"
        + String.join("\n", lines)
        + "\nbody "
        + r.body().length
        + " bytes, hash "
        + Arrays.hashCode(r.body())
        + (r.complete() ? "" : ", cut short");
  }

  @Test
  void everyShapeReadsTheSameThroughTheProxyAsDirectly() {
    List<Shape> shapes = shapes();
    shapes.forEach(s -> BY_ROW.put(s.row(), s));
    try (RawUpstream upstream = new RawUpstream(HttpShapesTest::answer);
        TpotProxy proxy =
            TpotProxy.start(
                ProxyConfig.of(0, Upstream.parse(upstream.baseUrl()))
                    .withMetricsPort(-1)
                    .withEventLoops(1)
                    .withDrainTimeout(Duration.ZERO),
                new ProxyMetrics(),
                ObserverFactory.NONE);
        RawHttp kept = new RawHttp(proxy.port())) {
      int compared = 0;
      for (Shape shape : shapes) {
        RawHttp.Response direct;
        try (RawHttp http = new RawHttp(upstream.port())) {
          direct = exchange(http, shape);
        }
        RawHttp.Response proxied;
        if (shape.version().equals("HTTP/1.1")) {
          proxied = exchange(kept, shape);
        } else {
          try (RawHttp http = new RawHttp(proxy.port())) {
            proxied = exchange(http, shape);
          }
        }
        boolean closeDelimited =
            direct.header("Content-Length") == null
                && direct.header("Transfer-Encoding") == null
                && !shape.method().equals("HEAD")
                && shape.finalStatus() != 204
                && shape.finalStatus() != 304;
        boolean reframed = closeDelimited && shape.version().equals("HTTP/1.1");
        // Netty's decoder drops Transfer-Encoding from a HEAD response (it frames no body): the
        // proxy cannot forward what it never sees
        boolean headChunked = shape.method().equals("HEAD");
        assertEquals(seen(direct, headChunked), seen(proxied, reframed), shape.toString());
        assertTrue(proxied.complete(), shape.toString());
        compared++;
      }
      assertEquals(shapes.size(), compared);
    }
  }
}
