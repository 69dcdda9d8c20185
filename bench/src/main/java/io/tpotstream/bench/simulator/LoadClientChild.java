package io.tpotstream.bench.simulator;

import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProcessMeter;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A load client for the simulator in a JVM of its own (Vert.x HTTP/1.1 on the native transport, one
 * connection per stream): {@code <port> <model> <maxTokens>}. On stdin, {@code streams N} keeps N
 * streams going from then on (a stream that ends starts the next request while there are no more
 * than N), and {@code count} reports {@code count} with what arrived since the previous count: the
 * content chunks, the requests ended and failed, the wall time and this JVM's CPU. It exits at the
 * end of its input.
 */
public final class LoadClientChild {
  private static final String TOKEN_DELTA = "\"delta\":{\"content\":\"";

  /** What arrived between two counts. */
  public record Count(long chunks, long requests, long failed, long wallNs, long cpuNs) {}

  private final HttpClientAgent client;
  private final Vertx vertx;
  private final RequestOptions options;
  private final String body;
  private final AtomicInteger target = new AtomicInteger();
  private final AtomicInteger live = new AtomicInteger();
  private final AtomicLong chunks = new AtomicLong();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  private LoadClientChild(Vertx vertx, int port, String model, int maxTokens) {
    this.vertx = vertx;
    this.client =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setTcpNoDelay(true)
                .setKeepAlive(true)
                .setDecompressionSupported(false),
            new PoolOptions().setHttp1MaxSize(100_000).setMaxWaitQueueSize(-1));
    this.options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setHost("127.0.0.1")
            .setPort(port)
            .setURI("/v1/chat/completions")
            .putHeader("Content-Type", "application/json");
    this.body = "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":" + maxTokens + "}";
  }

  public static void main(String[] args) throws Exception {
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true));
    LoadClientChild load =
        new LoadClientChild(vertx, Integer.parseInt(args[0]), args[1], Integer.parseInt(args[2]));
    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    long lastNs = System.nanoTime();
    long lastCpuNs = ProcessMeter.processCpuNs();
    String line;
    while ((line = stdin.readLine()) != null) {
      String[] words = line.trim().split("\\s+");
      if (words[0].equals("streams")) {
        load.streams(Integer.parseInt(words[1]));
      } else if (words[0].equals("count")) {
        long nowNs = System.nanoTime();
        long cpuNs = ProcessMeter.processCpuNs();
        ChildJvm.report(
            "count",
            new Count(
                load.chunks.getAndSet(0),
                load.requests.getAndSet(0),
                load.failed.getAndSet(0),
                nowNs - lastNs,
                cpuNs - lastCpuNs));
        lastNs = nowNs;
        lastCpuNs = cpuNs;
      }
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    System.exit(0);
  }

  private void streams(int n) {
    target.set(n);
    while (live.get() < n) {
      live.incrementAndGet();
      vertx.runOnContext(ignored -> next());
    }
  }

  /** Starts one more request on this stream, or ends the stream when there are too many. */
  private void next() {
    int now = live.get();
    if (now > target.get() && live.compareAndSet(now, now - 1)) {
      return;
    }
    client
        .request(options)
        .compose(request -> request.send(body))
        .compose(
            response -> {
              String[] tail = {""};
              response.handler(
                  (Buffer bytes) -> {
                    String text = tail[0] + bytes.toString(StandardCharsets.UTF_8);
                    chunks.addAndGet(count(text));
                    tail[0] = text.substring(Math.max(0, text.length() - TOKEN_DELTA.length() + 1));
                  });
              return response.end();
            })
        .onComplete(
            ar -> {
              requests.incrementAndGet();
              if (ar.failed()) {
                failed.incrementAndGet();
                vertx.setTimer(100, ignored -> next());
              } else {
                next();
              }
            });
  }

  /**
   * Content chunks in a read, with the previous read's last characters in front so that a marker
   * split between two reads counts once.
   */
  private static int count(String text) {
    int n = 0;
    for (int i = text.indexOf(TOKEN_DELTA); i >= 0; i = text.indexOf(TOKEN_DELTA, i + 1)) {
      n++;
    }
    return n;
  }
}
