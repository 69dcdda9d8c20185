package io.tpotstream.producer.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * A real HTTP server (the JDK's) that serves exposition text the test controls: {@code /metrics}
 * the body of its n-th request, and the ways an endpoint fails ({@code /status/500}, {@code /slow}
 * never answering until closed, {@code /huge} 20 MiB with its length, {@code /huge-chunked} 20 MiB
 * without, any other path a fixed text). It records the headers of every request.
 */
public final class ExpositionServer implements AutoCloseable {
  private final HttpServer server;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private final CountDownLatch closing = new CountDownLatch(1);
  private final AtomicInteger scrapes = new AtomicInteger();
  private final Map<String, String> fixed = new ConcurrentHashMap<>();
  private final List<Map<String, List<String>>> headers = new CopyOnWriteArrayList<>();
  private volatile IntFunction<String> metrics = n -> "";

  public ExpositionServer() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(threads);
    server.createContext("/", this::handle);
    server.start();
  }

  /** {@code /metrics} answers its n-th request (from 1) with {@code body.apply(n)}. */
  public ExpositionServer metrics(IntFunction<String> body) {
    this.metrics = body;
    return this;
  }

  /** {@code path} answers {@code body}. */
  public ExpositionServer fixed(String path, String body) {
    fixed.put(path, body);
    return this;
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  /** The headers of each {@code /metrics} request, in order. */
  public List<Map<String, List<String>>> headers() {
    return headers;
  }

  private void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    try (exchange) {
      switch (path) {
        case "/metrics" -> {
          headers.add(Map.copyOf(exchange.getRequestHeaders()));
          send(exchange, 200, metrics.apply(scrapes.incrementAndGet()));
        }
        case "/status/500" -> send(exchange, 500, "oops");
        case "/slow" -> {
          try {
            closing.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
        case "/huge", "/huge-chunked" -> {
          exchange.sendResponseHeaders(200, path.equals("/huge") ? 20L << 20 : 0);
          byte[] piece =
              "vllm:num_requests_running 1\n".repeat(4096).getBytes(StandardCharsets.UTF_8);
          try (OutputStream out = exchange.getResponseBody()) {
            for (long sent = 0; sent < 20L << 20; sent += piece.length) {
              out.write(piece);
            }
          } catch (IOException e) {
            // the client stopped reading at its bound
          }
        }
        default -> send(exchange, 200, fixed.getOrDefault(path, ""));
      }
    }
  }

  private static void send(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      exchange.getResponseBody().write(bytes);
    }
  }

  @Override
  public void close() {
    closing.countDown();
    server.stop(0);
    threads.shutdownNow();
  }
}
