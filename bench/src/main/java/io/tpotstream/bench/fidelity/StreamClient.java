package io.tpotstream.bench.fidelity;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * P1's client: closed-loop streaming chat completions, each request sent either directly to the
 * server or through the proxy, every SSE event timestamped with {@code System.nanoTime()} when the
 * network read that completed it returned (as an application's client would), on one event loop of
 * its own. The same client serves both paths, so that what differs between them is the proxy.
 */
final class StreamClient implements AutoCloseable {
  /** Where requests go. */
  enum Mode {
    DIRECT,
    PROXY,
    /** Alternately, so that both paths see the same server at the same time. */
    MIXED
  }

  /** One response as the client saw it. */
  record Result(String requestId, boolean viaProxy, int status, long[] arrivalsNs, int chunks) {}

  private static final byte[] CONTENT = "\"content\":\"".getBytes();

  private final Vertx vertx;
  private final HttpClient direct;
  private final HttpClient proxy;
  private final URI directBase;
  private final URI proxyBase;
  private final AtomicLong ids = new AtomicLong();

  StreamClient(String directBaseUrl, String proxyBaseUrl, int maxConnections) {
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setPreferNativeTransport(true));
    HttpClientOptions options =
        new HttpClientOptions()
            .setProtocolVersion(HttpVersion.HTTP_1_1)
            .setKeepAlive(true)
            .setTcpNoDelay(true)
            .setDecompressionSupported(false);
    PoolOptions pool = new PoolOptions().setHttp1MaxSize(maxConnections).setMaxWaitQueueSize(-1);
    direct = vertx.createHttpClient(options, pool);
    proxy = vertx.createHttpClient(options, pool);
    directBase = URI.create(directBaseUrl);
    proxyBase = URI.create(proxyBaseUrl);
  }

  /**
   * Runs {@code concurrency} closed-loop workers for {@code length}; requests that started before
   * the end finish.
   */
  List<Result> run(
      String model, int maxTokens, int concurrency, Duration length, Mode mode, String idPrefix) {
    ConcurrentLinkedQueue<Result> results = new ConcurrentLinkedQueue<>();
    long endNs = System.nanoTime() + length.toNanos();
    CompletableFuture<Void> all = new CompletableFuture<>();
    AtomicLong running = new AtomicLong(concurrency);
    String body =
        "{\"model\":\""
            + model
            + "\",\"stream\":true,\"max_tokens\":"
            + maxTokens
            + ",\"messages\":[{\"role\":\"user\",\"content\":\"benchmark\"}]}";
    vertx.runOnContext(
        v -> {
          for (int w = 0; w < concurrency; w++) {
            worker(w, 0, mode, body, endNs, idPrefix, results, running, all);
          }
        });
    all.orTimeout(length.toSeconds() + 300, TimeUnit.SECONDS).join();
    return new ArrayList<>(results);
  }

  private void worker(
      int w,
      int n,
      Mode mode,
      String body,
      long endNs,
      String idPrefix,
      ConcurrentLinkedQueue<Result> results,
      AtomicLong running,
      CompletableFuture<Void> all) {
    if (System.nanoTime() >= endNs) {
      if (running.decrementAndGet() == 0) {
        all.complete(null);
      }
      return;
    }
    boolean viaProxy = mode == Mode.PROXY || (mode == Mode.MIXED && (w + n) % 2 == 1);
    String id = idPrefix + "-" + ids.incrementAndGet();
    call(viaProxy, id, body)
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                results.add(ar.result());
              }
              worker(w, n + 1, mode, body, endNs, idPrefix, results, running, all);
            });
  }

  private Future<Result> call(boolean viaProxy, String id, String body) {
    URI base = viaProxy ? proxyBase : directBase;
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost(base.getHost())
            .setPort(base.getPort())
            .setURI("/v1/chat/completions")
            .putHeader("Content-Type", "application/json")
            .putHeader("Accept-Encoding", "identity")
            .putHeader("Authorization", "Bearer sk-bench")
            .putHeader("X-Request-Id", id);
    Promise<Result> done = Promise.promise();
    (viaProxy ? proxy : direct)
        .request(options)
        .compose(req -> req.send(Buffer.buffer(body)))
        .onFailure(done::fail)
        .onSuccess(
            response -> {
              EventScanner scanner = new EventScanner();
              response.handler(buffer -> scanner.feed(buffer, System.nanoTime()));
              response.exceptionHandler(done::tryFail);
              response.endHandler(
                  v ->
                      done.tryComplete(
                          new Result(
                              id,
                              viaProxy,
                              response.statusCode(),
                              Arrays.copyOf(scanner.arrivalsNs, scanner.chunks),
                              scanner.chunks)));
            });
    return done.future();
  }

  /** Finds SSE events (blank-line ends) and records when each content chunk arrived. */
  private static final class EventScanner {
    long[] arrivalsNs = new long[128];
    int chunks;
    private final byte[] event = new byte[8192];
    private int length;
    private byte previous;

    void feed(Buffer buffer, long arrivalNs) {
      for (int i = 0; i < buffer.length(); i++) {
        byte b = buffer.getByte(i);
        if (b == '\n' && previous == '\n') {
          if (isContentToken()) {
            if (chunks == arrivalsNs.length) {
              arrivalsNs = Arrays.copyOf(arrivalsNs, chunks * 2);
            }
            arrivalsNs[chunks++] = arrivalNs;
          }
          length = 0;
        } else if (length < event.length) {
          event[length++] = b;
        }
        previous = b;
      }
    }

    private boolean isContentToken() {
      outer:
      for (int i = 0; i + CONTENT.length < length; i++) {
        for (int j = 0; j < CONTENT.length; j++) {
          if (event[i + j] != CONTENT[j]) {
            continue outer;
          }
        }
        return event[i + CONTENT.length] != '"';
      }
      return false;
    }
  }

  @Override
  public void close() {
    vertx.close().toCompletionStage().toCompletableFuture().orTimeout(10, TimeUnit.SECONDS).join();
  }
}
