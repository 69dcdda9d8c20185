package io.tpotstream.simulator.load;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.ModelTruth;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A manual load check, not a test: {@code streams} concurrent streams of a model whose gap is a
 * constant {@code gapMs}, read by a Vert.x client in the same JVM (its own event loops); prints the
 * client's gaps, the simulator's actual gaps, its pacing error and the CPU per thread. Arguments:
 * streams, gapMs, tokens per stream, client event loops (defaults 2000, 20, 250, 1). Run it with
 * the test classpath:
 *
 * <pre>
 * ./mvnw -q -pl simulator -am test-compile dependency:build-classpath -Dmdep.outputFile=cp.txt
 * java -cp simulator/target/test-classes:simulator/target/classes:$(cat simulator/cp.txt) \
 *     io.tpotstream.simulator.load.PacingLoadCheck 2000 20 150
 * </pre>
 *
 * <p>With a fifth argument, a port, it loads an already running simulator's model {@code load}
 * instead (start it with {@code tpot simulate --profiles} a file defining {@code load}) and prints
 * only the client's view: read the simulator's own in {@code GET /truth}.
 */
public final class PacingLoadCheck {
  private PacingLoadCheck() {}

  public static void main(String[] args) throws Exception {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
    double gapMs = args.length > 1 ? Double.parseDouble(args[1]) : 20;
    int tokens = args.length > 2 ? Integer.parseInt(args[2]) : 250;
    int clientLoops = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    if (args.length > 4) {
      int port = Integer.parseInt(args[4]);
      Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(clientLoops));
      load(vertx, port, streams, gapMs, tokens, null);
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      return;
    }
    ModelProfile profile =
        ModelProfile.of(new Distribution.Constant(50), new Distribution.Constant(gapMs));
    try (Simulator simulator =
        Simulator.start(
            SimulatorConfig.defaults()
                .withPort(0)
                .withSeed(1L)
                .withRequestsKept(0)
                .withProfile("load", profile))) {
      Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(clientLoops));
      load(vertx, simulator.port(), streams, gapMs, tokens, simulator);
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static void load(
      Vertx vertx, int port, int streams, double gapMs, int tokens, Simulator simulator)
      throws Exception {
    HttpClientAgent client =
        vertx.createHttpClient(
            new HttpClientOptions().setTcpNoDelay(true).setKeepAlive(true),
            new PoolOptions().setHttp1MaxSize(streams).setMaxWaitQueueSize(-1));
    LatencyHistogram clientGaps = new LatencyHistogram();
    CountDownLatch done = new CountDownLatch(streams);
    AtomicInteger failed = new AtomicInteger();
    String body = "{\"model\":\"load\",\"stream\":true,\"max_tokens\":" + tokens + "}";
    long cpuStart = processCpuNs();
    long wallStart = System.nanoTime();
    for (int i = 0; i < streams; i++) {
      RequestOptions request =
          new RequestOptions()
              .setMethod(HttpMethod.POST)
              .setHost("127.0.0.1")
              .setPort(port)
              .setURI("/v1/chat/completions")
              .putHeader("Content-Type", "application/json");
      long[] last = {-1};
      client
          .request(request)
          .compose(r -> r.send(body))
          .onSuccess(
              response ->
                  response
                      .handler(
                          (Buffer buffer) -> {
                            long now = System.nanoTime();
                            String text = buffer.toString();
                            int chunks =
                                count(text, "\"content\":\"") - count(text, "\"content\":\"\"");
                            for (int c = 0; c < chunks; c++) {
                              if (last[0] >= 0) {
                                synchronized (clientGaps) {
                                  clientGaps.recordNanos(now - last[0]);
                                }
                              }
                              last[0] = now;
                            }
                          })
                      .endHandler(v -> done.countDown())
                      .exceptionHandler(
                          e -> {
                            failed.incrementAndGet();
                            done.countDown();
                          }))
          .onFailure(
              e -> {
                failed.incrementAndGet();
                done.countDown();
                System.err.println("request failed: " + e);
              });
    }
    boolean finished = done.await(10, TimeUnit.MINUTES);
    double wallS = (System.nanoTime() - wallStart) / 1e9;
    double cpuS = (processCpuNs() - cpuStart) / 1e9;
    long chunks = clientGaps.count() + streams;
    System.out.printf(
        "streams %d, gap %.3f ms, tokens %d: finished %s, failed %d, wall %.1f s, process CPU"
            + " %.1f s (%.0f%% of one core), chunks/s %.0f%n",
        streams,
        gapMs,
        tokens,
        finished,
        failed.get(),
        wallS,
        cpuS,
        100 * cpuS / wallS,
        chunks / wallS);
    System.out.println("client gaps   " + clientGaps.summary());
    if (simulator != null) {
      ModelTruth truth = simulator.truth().models().get("load");
      System.out.println("actual gaps   " + truth.gap());
      System.out.println("pacing error  " + truth.pacingError());
      System.out.println("outcomes      " + truth.outcomes());
      System.out.println("CPU by thread " + cpuByThread());
    }
    client.close();
  }

  /** CPU seconds per thread name (digits folded), the largest first. */
  private static String cpuByThread() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    java.util.Map<String, Long> byName = new java.util.TreeMap<>();
    for (java.lang.management.ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null) {
        long cpuNs = threads.getThreadCpuTime(info.getThreadId());
        byName.merge(info.getThreadName().replaceAll("\\d+", "N"), Math.max(0, cpuNs), Long::sum);
      }
    }
    StringBuilder out = new StringBuilder();
    byName.entrySet().stream()
        .sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(6)
        .forEach(e -> out.append(String.format("%s %.1f s; ", e.getKey(), e.getValue() / 1e9)));
    return out.toString();
  }

  private static int count(String text, String needle) {
    int count = 0;
    for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
      count++;
    }
    return count;
  }

  private static long processCpuNs() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
