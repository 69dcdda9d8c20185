package io.tpotstream.proxy;

import io.tpotstream.common.Waits;
import io.tpotstream.producer.http.TlsFiles;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.measure.Measurements;
import io.tpotstream.proxy.metrics.ProxyMetrics;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Primes the proxy before it listens: a second proxy with the same settings, in the same JVM,
 * forwards streams from a {@link Primer}'s server to a client inside the process, and measures them
 * (framing, hand-off, the recorder; requests marked warm-up, whose events the proxy's publisher
 * never sends), for a fixed budget of time, so that the first request of a real client meets
 * compiled code and the port still opens within seconds; no byte reaches the upstream or the real
 * port meanwhile.
 */
final class ProxyPrimer {
  static final String MODEL = "tpot-primer";

  /** Streams in flight at once while priming. */
  private static final int STREAMS = 16;

  private static final String OPENAI_BODY =
      "{\"model\":\""
          + MODEL
          + "\",\"stream\":true,\"messages\":[{\"role\":\"user\","
          + "\"content\":\"prime\"}],\"max_tokens\":64}";
  private static final String ANTHROPIC_BODY =
      "{\"model\":\""
          + MODEL
          + "\",\"max_tokens\":64,\"stream\":true,\"messages\":"
          + "[{\"role\":\"user\",\"content\":\"prime\"}]}";

  private ProxyPrimer() {}

  /** What priming did: how long it took, the streams it forwarded whole and their chunks. */
  record Primed(Duration took, long streams, long chunks) {}

  /**
   * Primes for {@code budget}, starting and stopping the priming proxy and its server included.
   *
   * @param measurements where the priming proxy's measurements go (marked warm-up)
   * @param primer starts the server the priming streams come from
   */
  static Primed prime(
      ProxyConfig config, Measurements measurements, Duration budget, Primer primer) {
    long startNs = System.nanoTime();
    Primer.Server server = primer.start(MODEL);
    TpotProxy proxy = null;
    Vertx client = Vertx.vertx();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong streams = new AtomicLong();
    ProxyMetrics metrics = new ProxyMetrics();
    try {
      ProxyConfig priming =
          config
              .withHost("127.0.0.1")
              .withPort(0)
              .withUpstream(Upstream.parse(server.baseUrl()))
              .withMetricsPort(-1)
              .withListenTls(TlsFiles.NONE)
              .withSample(1.0);
      proxy = TpotProxy.start(priming, metrics, measurements);
      HttpClient http =
          client.createHttpClient(
              new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(proxy.port()),
              new io.vertx.core.http.PoolOptions().setHttp1MaxSize(STREAMS));
      for (int i = 0; i < STREAMS; i++) {
        stream(http, i % 2 == 0, stop, streams);
      }
      // stopping the priming proxy, its client and server takes up to half a second when loaded
      long leftMs = budget.toMillis() - 250 - (System.nanoTime() - startNs) / 1_000_000;
      if (leftMs > 0) {
        Thread.sleep(leftMs);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      stop.set(true);
      Waits.quietly(client.close().toCompletionStage(), 10);
      if (proxy != null) {
        proxy.close();
      }
      server.close();
    }
    return new Primed(
        Duration.ofNanos(System.nanoTime() - startNs), streams.get(), metrics.chunksForwarded());
  }

  /** One stream read to its end, then the next, until {@code stop}. */
  private static void stream(
      HttpClient http, boolean openAi, AtomicBoolean stop, AtomicLong streams) {
    if (stop.get()) {
      return;
    }
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setURI(openAi ? "/v1/chat/completions" : "/v1/messages")
            .putHeader("Content-Type", "application/json");
    http.request(options)
        .compose(req -> req.send(Buffer.buffer(openAi ? OPENAI_BODY : ANTHROPIC_BODY)))
        .compose(response -> response.body())
        .onComplete(
            done -> {
              if (done.succeeded() && !stop.get()) {
                streams.incrementAndGet();
              }
              stream(http, openAi, stop, streams);
            });
  }
}
