package io.tpotstream.bench.memory;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.fidelity.ProxyOverhead;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProxyChild;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.Json;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;

/**
 * P2 proxy memory: the proxy in a JVM of its own (jvm/proxy.options, as {@code tpot proxy} runs)
 * forwards and measures responses of 2 MB deltas (as image and audio models stream them) from an
 * upstream in the bench's JVM, four at a time, read and discarded by a plain client; then a gzip
 * bomb (64 KB on the wire, one line of 64 MiB once inflated) and three ordinary compressed streams.
 * The figures: the proxy's heap in use right after a full GC ({@code System.gc()}, then the
 * MemoryMXBean) before, after the deltas and after the bomb, and the events it published against
 * those the streams make (the bomb's measurement ends at the cap, the streams after it are
 * measured).
 */
public final class ProxyMemory {
  static final int DELTA_BYTES = 2_000_000;
  static final int DELTAS_PER_RESPONSE = 2;
  static final int CONCURRENCY = 4;
  static final int ORDINARY_STREAMS = 3;
  static final int ORDINARY_TOKENS = 3;
  static final long GOAL_BYTES = 256L << 20;
  private static final int BOMB_LINE_BYTES = 64 << 20;

  private ProxyMemory() {}

  public static void run(BenchEnv env, BenchReport report) {
    try {
      measure(env, report);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("P2 interrupted", e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void measure(BenchEnv env, BenchReport report)
      throws InterruptedException, IOException {
    int responses = env.pick(1_000, 200);
    report.section(
        "P2",
        String.format(
            Locale.ROOT,
            "proxy memory (%,d responses of %d deltas of 2 MB, %d at a time, then a gzip bomb and"
                + " %d ordinary compressed streams; heap in use after a full GC)",
            responses,
            DELTAS_PER_RESPONSE,
            CONCURRENCY,
            ORDINARY_STREAMS));
    byte[] delta = deltaEvent();
    byte[] bomb = bomb();
    byte[] ordinary = ordinary();
    Vertx vertx = Vertx.vertx();
    String topic = BenchTopics.unique("bench-p2-proxy");
    BenchTopics.create(env.bootstrapServers(), topic, 3);
    try {
      HttpServer upstream = upstream(vertx, delta, bomb, ordinary);
      try (ChildJvm child =
          ChildJvm.start(
              ProxyChild.class,
              ProxyOverhead.proxyJvmOptions(env),
              List.of("http://127.0.0.1:" + upstream.actualPort(), env.bootstrapServers(), topic),
              env.workDir().resolve("p2-proxy.log"))) {
        ProxyChild.Ready ready =
            Json.MAPPER.treeToValue(
                child.await("ready", Duration.ofSeconds(120)).json(), ProxyChild.Ready.class);
        URI url = URI.create("http://127.0.0.1:" + ready.port() + "/v1/chat/completions");
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        JsonNode start = heap(child);
        long startNs = System.nanoTime();
        long bytes = deltas(client, url, responses, DELTAS_PER_RESPONSE * (long) delta.length);
        long elapsedNs = System.nanoTime() - startNs;
        JsonNode afterDeltas = heap(child);
        long bombBytes = exchange(client, url, "bomb", "gzip");
        for (int i = 0; i < ORDINARY_STREAMS; i++) {
          exchange(client, url, "plain", "gzip");
        }
        JsonNode afterBomb = heap(child);
        child.send("stop");
        ProxyChild.Result result =
            Json.MAPPER.treeToValue(
                child.await("result", Duration.ofSeconds(120)).json(), ProxyChild.Result.class);
        child.waitFor(Duration.ofSeconds(30));
        long retained = afterDeltas.path("heapBytes").asLong();
        report.note(
            String.format(
                Locale.ROOT,
                "P2: %s through the proxy in %s; the bomb's %,d bytes reached the client %s",
                BenchReport.mb(bytes),
                BenchReport.seconds(elapsedNs),
                bombBytes,
                bombBytes == bomb.length ? "whole" : "NOT whole (" + bomb.length + " sent)"));
        report.headline(
            "proxy: heap after a full GC after " + BenchReport.count(responses) + " responses",
            BenchReport.mb(retained)
                + (retained <= GOAL_BYTES ? " (goal ≤ 268.4 MB (256 MiB): met)" : " (goal MISSED)")
                + "; at start "
                + BenchReport.mb(start.path("heapBytes").asLong()));
        report.figure(
            "proxy: heap after a full GC after the bomb and " + ORDINARY_STREAMS + " streams",
            BenchReport.mb(afterBomb.path("heapBytes").asLong()));
        // start, a token per delta, end; the bomb: start, error; then start, tokens, end
        long expected =
            responses * (2L + DELTAS_PER_RESPONSE) + 2 + ORDINARY_STREAMS * (2L + ORDINARY_TOKENS);
        report.figure(
            "proxy: events published / dropped (expected)",
            BenchReport.count(result.published())
                + " / "
                + BenchReport.count(result.dropped())
                + " ("
                + BenchReport.count(expected)
                + ")");
      }
    } finally {
      vertx.close();
    }
  }

  private static JsonNode heap(ChildJvm child) throws InterruptedException {
    child.send("heap");
    return child.await("heap", Duration.ofSeconds(60)).json();
  }

  /**
   * {@code responses} streams of deltas, {@link #CONCURRENCY} at a time; returns the bytes read.
   */
  private static long deltas(HttpClient client, URI url, int responses, long minBytes)
      throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(CONCURRENCY);
    AtomicInteger left = new AtomicInteger(responses);
    List<Future<Long>> done = new ArrayList<>();
    for (int i = 0; i < CONCURRENCY; i++) {
      done.add(
          pool.submit(
              () -> {
                long read = 0;
                while (left.getAndDecrement() > 0) {
                  long n = exchange(client, url, "deltas", "identity");
                  if (n < minBytes) {
                    throw new IllegalStateException("a response of " + n + " bytes");
                  }
                  read += n;
                }
                return read;
              }));
    }
    pool.shutdown();
    long total = 0;
    try {
      for (Future<Long> f : done) {
        total += f.get(30, TimeUnit.MINUTES);
      }
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      pool.shutdownNow();
      throw new IllegalStateException("P2's client failed: " + e, e);
    }
    return total;
  }

  /** One streaming request for {@code model}; returns the bytes of the response's body. */
  private static long exchange(HttpClient client, URI url, String model, String encoding)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(url)
            .header("Content-Type", "application/json")
            .header("Accept-Encoding", encoding)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"model\":\"" + model + "\",\"stream\":true}"))
            .build();
    HttpResponse<InputStream> response =
        client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    if (response.statusCode() != 200) {
      throw new IllegalStateException("HTTP " + response.statusCode() + " for " + model);
    }
    long n = 0;
    byte[] buffer = new byte[65_536];
    try (InputStream body = response.body()) {
      int r;
      while ((r = body.read(buffer)) >= 0) {
        n += r;
      }
    }
    return n;
  }

  private static HttpServer upstream(Vertx vertx, byte[] delta, byte[] bomb, byte[] ordinary) {
    Buffer done = Buffer.buffer("data: [DONE]\n\n");
    return vertx
        .createHttpServer()
        .requestHandler(
            r ->
                r.body()
                    .onSuccess(
                        body -> {
                          String text = body.toString();
                          HttpServerResponse response =
                              r.response()
                                  .setChunked(true)
                                  .putHeader("Content-Type", "text/event-stream");
                          if (text.contains("\"deltas\"")) {
                            for (int i = 0; i < DELTAS_PER_RESPONSE; i++) {
                              response.write(Buffer.buffer(delta));
                            }
                            response.end(done);
                            return;
                          }
                          response.putHeader("Content-Encoding", "gzip");
                          byte[] sent = text.contains("\"bomb\"") ? bomb : ordinary;
                          for (int at = 0; at < sent.length; at += 16_384) {
                            response.write(
                                Buffer.buffer(
                                    Arrays.copyOfRange(
                                        sent, at, Math.min(sent.length, at + 16_384))));
                          }
                          response.end();
                        }))
        .listen(0, "127.0.0.1")
        .toCompletionStage()
        .toCompletableFuture()
        .join();
  }

  /** One OpenAI chunk whose delta is 2 MB of base64-like text, as an image model streams it. */
  static byte[] deltaEvent() {
    String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    Random random = new Random(49);
    StringBuilder b =
        new StringBuilder("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"");
    for (int i = 0; i < DELTA_BYTES; i++) {
      b.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return b.append("\"}}]}\n\n").toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** One token chunk whose text is 64 MiB of one letter: about 64 KB once compressed. */
  static byte[] bomb() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out, true)) {
      gzip.write(ascii("data: {\"choices\":[{\"delta\":{\"content\":\""));
      byte[] letters = new byte[1 << 20];
      Arrays.fill(letters, (byte) 'A');
      for (int i = 0; i < BOMB_LINE_BYTES / letters.length; i++) {
        gzip.write(letters);
      }
      gzip.write(ascii("\"}}]}\n\ndata: [DONE]\n\n"));
    }
    return out.toByteArray();
  }

  static byte[] ordinary() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gzip = new GZIPOutputStream(out, true)) {
      for (int i = 0; i < ORDINARY_TOKENS; i++) {
        gzip.write(ascii("data: {\"choices\":[{\"delta\":{\"content\":\"w" + i + "\"}}]}\n\n"));
        gzip.flush();
      }
      gzip.write(ascii("data: [DONE]\n\n"));
    }
    return out.toByteArray();
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
