package io.tpotstream.bench.fidelity;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProxyChild;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.common.Json;
import io.tpotstream.common.jvm.JvmOptions;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.GroundTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * P1: what {@code tpot proxy} adds to the traffic it measures. The proxy runs in its own JVM,
 * publishing to the embedded broker; one client (an event loop of its own, timestamps per network
 * read, as an application's) sends closed-loop streams to the simulator, every other request
 * through the proxy, so that both paths see the same server at the same moments. Per path: the
 * client's own gaps, their distance from the gaps the simulator sent, and each chunk's latency from
 * the simulator's send to the client's read; the proxy's own per-chunk figure from its {@code
 * /metrics}; its events against the simulator's truth (as B2 does for the producer); its CPU; then
 * the chunks/s and streams/s a fixed number of streams get directly and through the proxy,
 * alternating.
 */
public final class ProxyOverhead {
  static final String FAST = "bench-fast";
  static final int MAX_TOKENS = 100;
  private static final Pattern BUCKET =
      Pattern.compile("tpot_proxy_added_latency_seconds_bucket\\{le=\"([^\"]+)\"\\} (\\d+)");

  private ProxyOverhead() {}

  public static void run(BenchEnv env, BenchReport report) {
    // the realistic case: an application's handful of concurrent streams
    int streams = 10;
    Duration warmup = env.pick(Duration.ofSeconds(10), Duration.ofSeconds(5));
    Duration measure = env.pick(Duration.ofSeconds(30), Duration.ofSeconds(10));
    Duration segment = env.pick(Duration.ofSeconds(6), Duration.ofSeconds(3));
    report.section(
        "P1",
        String.format(
            Locale.ROOT,
            "proxy overhead (%d closed-loop streams of %d tokens at 50 tokens/s, half direct and"
                + " half through the proxy, for %d s from the primed proxy's first request; the"
                + " client warmed %d s on the direct path only)",
            streams,
            MAX_TOKENS,
            measure.toSeconds(),
            warmup.toSeconds()));
    Map<String, ModelProfile> profiles = new HashMap<>(BenchProfiles.fiftyTokensPerSecond());
    profiles.putAll(BenchProfiles.shortRequests());
    profiles.put(
        FAST, ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(0.2)));
    SimulatorConfig simConfig = BenchProfiles.simulator(11L, profiles, 1_000_000);
    String topic = BenchTopics.unique("bench-p1-proxy");
    BenchTopics.create(env.bootstrapServers(), topic, 3);
    try (Simulator simulator = Simulator.start(simConfig);
        ChildJvm child =
            ChildJvm.start(
                ProxyChild.class,
                proxyJvmOptions(env),
                List.of(simulator.baseUrl(), env.bootstrapServers(), topic),
                env.workDir().resolve("p1-proxy.log"))) {
      ProxyChild.Ready ready =
          Json.MAPPER.treeToValue(
              child.await("ready", Duration.ofSeconds(120)).json(), ProxyChild.Ready.class);
      String proxyBase = "http://127.0.0.1:" + ready.port();
      try (StreamClient client = new StreamClient(simulator.baseUrl(), proxyBase, 1_000)) {
        // the client is warmed, the proxy is not: its first requests are measured, as an
        // application's are right after a deploy
        client.run(
            BenchProfiles.CONSTANT, MAX_TOKENS, streams, warmup, StreamClient.Mode.DIRECT, "w");
        simulator.truth().reset();
        String before = scrape(ready.metricsPort());
        long cpuBefore = cpu(child);
        long startNs = System.nanoTime();
        List<StreamClient.Result> results =
            client.run(
                BenchProfiles.CONSTANT, MAX_TOKENS, streams, measure, StreamClient.Mode.MIXED, "m");
        long wallNs = System.nanoTime() - startNs;
        JsonNode stats = stats(child);
        long cpuNs = stats.path("cpuNs").asLong() - cpuBefore;
        String after = scrape(ready.metricsPort());
        reportLatency(report, results, simulator.truth(), wallNs, cpuNs, before, after);
        awaitRecords(env.bootstrapServers(), topic, stats.path("published").asLong());
        Distortion d =
            Distortion.of(EventsTopic.read(env.bootstrapServers(), topic), simulator.truth());
        report.headline(
            "proxy's events: |distortion| p50 / p99 / p99.9 / max",
            BenchReport.msPercentiles(d.absolute, 50, 99, 99.9)
                + String.format(
                    Locale.ROOT,
                    " (%s gaps of %s requests, against the simulator's truth)",
                    BenchReport.count(d.pairs),
                    BenchReport.count(d.requestsMatched)));
        simulator.truth().reset();
        pythonSideBySide(env, report, simulator, proxyBase, streams);
        simulator.truth().reset();

        report.note(
            "throughput: "
                + streams
                + " streams, direct and through the proxy in turn, "
                + segment.toSeconds()
                + " s each, twice");
        throughput(
            report, client, FAST, 1_000, streams, segment, "chunks/s, 1,000-chunk streams", true);
        throughput(
            report,
            client,
            BenchProfiles.SHORT,
            2,
            streams,
            segment,
            "streams/s, 2-chunk streams",
            false);
      }
      child.send("stop");
      ProxyChild.Result result =
          Json.MAPPER.treeToValue(
              child.await("result", Duration.ofSeconds(120)).json(), ProxyChild.Result.class);
      report.figure(
          "proxy: CPU ms by thread group (whole run)",
          result.costs().cpuMsByThreadGroup().toString());
      report.figure(
          "proxy: events published / dropped",
          BenchReport.count(result.published()) + " / " + BenchReport.count(result.dropped()));
      report.figure(
          "proxy: worst added latency of one chunk (whole run)",
          BenchReport.ms(result.maxAddedNs() / 1000)
              + " ("
              + result.costs().gcCount()
              + " GCs, "
              + result.costs().gcMs()
              + " ms in GC)");
      child.waitFor(Duration.ofSeconds(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (IOException e) {
      throw new IllegalStateException("unreadable report from the proxy: " + e.getMessage(), e);
    }
  }

  /**
   * The child's JVM options: {@code tpot proxy}'s ({@code jvm/proxy.options}), the suite's (e.g.
   * JFR), then {@code -Dtpot.bench.proxyJvm="..."}.
   */
  public static List<String> proxyJvmOptions(BenchEnv env) {
    List<String> options = new java.util.ArrayList<>(JvmOptions.of("proxy"));
    options.addAll(env.childJvmOptions());
    String extra = System.getProperty("tpot.bench.proxyJvm", "");
    for (String option : extra.trim().split("\\s+")) {
      if (!option.isEmpty()) {
        options.add(option);
      }
    }
    return options;
  }

  /** Per path: the client's gaps, their distance from the truth, and chunk latency. */
  private static final class PathStats {
    final LatencyHistogram gaps = new LatencyHistogram();
    final LatencyHistogram distortion = new LatencyHistogram();
    final LatencyHistogram latency = new LatencyHistogram();
    long requests;
    long chunks;
    long failed;
    long withoutTruth;

    void add(StreamClient.Result r, Optional<RequestTruth> truth) {
      if (r.status() != 200) {
        failed++;
        return;
      }
      requests++;
      chunks += r.chunks();
      long[] at = r.arrivalsNs();
      for (int i = 1; i < r.chunks(); i++) {
        gaps.recordNanos(at[i] - at[i - 1]);
      }
      if (truth.isEmpty()) {
        withoutTruth++;
        return;
      }
      List<ChunkTruth> sent = truth.get().chunks();
      for (int i = 0; i < Math.min(sent.size(), r.chunks()); i++) {
        latency.recordNanos(Math.max(0, at[i] - sent.get(i).sentNs()));
        if (i > 0) {
          long trueGap = sent.get(i).sentNs() - sent.get(i - 1).sentNs();
          distortion.recordNanos(Math.abs((at[i] - at[i - 1]) - trueGap));
        }
      }
    }
  }

  private static void reportLatency(
      BenchReport report,
      List<StreamClient.Result> results,
      GroundTruth truth,
      long wallNs,
      long proxyCpuNs,
      String metricsBefore,
      String metricsAfter) {
    PathStats direct = new PathStats();
    PathStats proxied = new PathStats();
    for (StreamClient.Result r : results) {
      (r.viaProxy() ? proxied : direct).add(r, truth.request(r.requestId()));
    }
    report.figure(
        "requests direct / through the proxy",
        BenchReport.count(direct.requests)
            + " / "
            + BenchReport.count(proxied.requests)
            + " ("
            + BenchReport.count(direct.chunks + proxied.chunks)
            + " chunks; failed "
            + (direct.failed + proxied.failed)
            + ")");
    line(report, "client's gaps, direct", direct.gaps, false);
    line(report, "client's gaps, through the proxy", proxied.gaps, false);
    line(report, "|gap - sent gap|, direct", direct.distortion, false);
    line(report, "|gap - sent gap|, through the proxy", proxied.distortion, true);
    report.headline(
        "|gap - sent gap| proxy minus direct: p99 / max",
        BenchReport.msDifferences(proxied.distortion, direct.distortion, 99)
            + " (goal: within 0.5 ms / 2 ms)");
    report.headline(
        "client's gaps proxy minus direct: p99 / max",
        BenchReport.msDifferences(proxied.gaps, direct.gaps, 99));
    line(report, "chunk latency (send to read), direct", direct.latency, false);
    line(report, "chunk latency (send to read), through the proxy", proxied.latency, false);
    report.headline(
        "added latency per chunk: p50 / p99 / max",
        String.format(
            Locale.ROOT,
            "%+.3f / %+.3f / %+.3f ms (proxy minus direct, same run)",
            (proxied.latency.percentileMicros(50) - direct.latency.percentileMicros(50)) / 1000.0,
            (proxied.latency.percentileMicros(99) - direct.latency.percentileMicros(99)) / 1000.0,
            (proxied.latency.maxMicros() - direct.latency.maxMicros()) / 1000.0));
    Map<Double, Long> buckets = buckets(metricsAfter);
    Map<Double, Long> earlier = buckets(metricsBefore);
    buckets.replaceAll((le, n) -> n - earlier.getOrDefault(le, 0L));
    long total = buckets.getOrDefault(Double.POSITIVE_INFINITY, 0L);
    report.figure(
        "proxy's own read-to-written per chunk",
        String.format(
            Locale.ROOT,
            "p50 <= %s, p99 <= %s, p99.9 <= %s (%s chunks, from its /metrics buckets)",
            bound(buckets, total, 0.50),
            bound(buckets, total, 0.99),
            bound(buckets, total, 0.999),
            BenchReport.count(total)));
    double cores = proxyCpuNs / (double) wallNs;
    report.headline(
        "proxy CPU",
        String.format(
            Locale.ROOT,
            "%.2f cores (%.1f µs per forwarded chunk, publishing included)",
            cores,
            proxyCpuNs / 1000.0 / Math.max(1, proxied.chunks)));
    if (direct.withoutTruth + proxied.withoutTruth > 0) {
      report.note(direct.withoutTruth + proxied.withoutTruth + " requests had no truth kept");
    }
  }

  /**
   * The same third-party client as B2's anchor (Python aiohttp), twice at once: half the streams
   * directly, half through the proxy, each chunk's read time (perf_counter_ns, the same monotonic
   * clock as the simulator's) against the simulator's send time.
   */
  private static void pythonSideBySide(
      BenchEnv env, BenchReport report, Simulator simulator, String proxyBase, int streams) {
    Optional<String> python = PythonAnchor.python();
    if (python.isEmpty()) {
      report.note(
          "Python aiohttp side by side skipped: no python3 with aiohttp (apt-get install"
              + " python3-aiohttp)");
      return;
    }
    int each = streams / 2;
    int requests = env.pick(each * 8, each * 3);
    String url = "/v1/chat/completions";
    CompletableFuture<PythonAnchor.Result> direct =
        CompletableFuture.supplyAsync(
            () ->
                PythonAnchor.run(
                    python.get(),
                    env.workDir(),
                    simulator.baseUrl() + url,
                    BenchProfiles.CONSTANT,
                    each,
                    requests,
                    MAX_TOKENS,
                    "py-direct"));
    PythonAnchor.Result proxied =
        PythonAnchor.run(
            python.get(),
            env.workDir(),
            proxyBase + url,
            BenchProfiles.CONSTANT,
            each,
            requests,
            MAX_TOKENS,
            "py-proxy");
    PythonAnchor.Result straight = direct.join();
    PathStats d = new PathStats();
    PathStats p = new PathStats();
    add(d, straight, simulator.truth());
    add(p, proxied, simulator.truth());
    report.note(
        "Python aiohttp client, "
            + each
            + " streams directly and "
            + each
            + " through the proxy at the same time ("
            + BenchReport.count(d.requests + p.requests)
            + " requests, errors "
            + (straight.errors() + proxied.errors())
            + ")");
    line(report, "aiohttp: |gap - sent gap|, direct", d.distortion, false);
    line(report, "aiohttp: |gap - sent gap|, through the proxy", p.distortion, false);
    report.headline(
        "aiohttp: |gap - sent gap| proxy minus direct: p99 / max",
        BenchReport.msDifferences(p.distortion, d.distortion, 99));
    line(report, "aiohttp: chunk latency, direct", d.latency, false);
    line(report, "aiohttp: chunk latency, through the proxy", p.latency, false);
  }

  private static void add(PathStats stats, PythonAnchor.Result result, GroundTruth truth) {
    for (Map.Entry<String, long[]> r : result.arrivals().entrySet()) {
      long[] at = r.getValue();
      stats.add(
          new StreamClient.Result(r.getKey(), false, 200, at, at.length),
          truth.request(r.getKey()));
    }
  }

  private static void line(BenchReport report, String label, LatencyHistogram h, boolean headline) {
    String value =
        String.format(
            Locale.ROOT,
            "p50 %s, p99 %s, p99.9 %s, max %s",
            BenchReport.ms(h.percentileMicros(50)),
            BenchReport.ms(h.percentileMicros(99)),
            BenchReport.ms(h.percentileMicros(99.9)),
            BenchReport.ms(h.maxMicros()));
    if (headline) {
      report.headline(label, value);
    } else {
      report.figure(label, value);
    }
  }

  private static void throughput(
      BenchReport report,
      StreamClient client,
      String model,
      int tokens,
      int streams,
      Duration segment,
      String unit,
      boolean chunks) {
    double[] rate = new double[2];
    for (int round = 0; round < 2; round++) {
      for (int path = 0; path < 2; path++) {
        StreamClient.Mode mode = path == 0 ? StreamClient.Mode.DIRECT : StreamClient.Mode.PROXY;
        long start = System.nanoTime();
        List<StreamClient.Result> results =
            client.run(model, tokens, streams, segment, mode, "t" + round + path);
        double seconds = (System.nanoTime() - start) / 1e9;
        long n =
            chunks
                ? results.stream().mapToLong(StreamClient.Result::chunks).sum()
                : results.stream().filter(r -> r.status() == 200).count();
        rate[path] += n / seconds / 2;
      }
    }
    report.headline(
        "throughput " + unit + ": direct / proxy",
        String.format(
            Locale.ROOT,
            "%,.0f / %,.0f (proxy at %.0f%% of direct)",
            rate[0],
            rate[1],
            100 * rate[1] / rate[0]));
  }

  private static long cpu(ChildJvm child) throws InterruptedException {
    return stats(child).path("cpuNs").asLong();
  }

  /** The proxy's CPU time and events published so far. */
  private static JsonNode stats(ChildJvm child) throws InterruptedException {
    child.send("cpu");
    return child.await("cpu", Duration.ofSeconds(30)).json();
  }

  /** Waits (at most 60 s) until the topic holds at least {@code records} records. */
  private static void awaitRecords(String bootstrap, String topic, long records)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (KafkaConsumer<byte[], byte[]> consumer = BenchTopics.consumer(bootstrap)) {
      List<TopicPartition> parts = BenchTopics.assignFromStart(consumer, topic);
      while (System.nanoTime() < deadline) {
        long end = consumer.endOffsets(parts).values().stream().mapToLong(Long::longValue).sum();
        if (end >= records) {
          return;
        }
        Thread.sleep(100);
      }
    }
  }

  private static String scrape(int port) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static Map<Double, Long> buckets(String metrics) {
    Map<Double, Long> buckets = new TreeMap<>();
    Matcher m = BUCKET.matcher(metrics);
    while (m.find()) {
      double le =
          m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1));
      buckets.put(le, Long.parseLong(m.group(2)));
    }
    return buckets;
  }

  private static String bound(Map<Double, Long> cumulative, long total, double quantile) {
    for (Map.Entry<Double, Long> e : cumulative.entrySet()) {
      if (e.getValue() >= quantile * total) {
        return e.getKey().isInfinite()
            ? "> 50 ms"
            : String.format(Locale.ROOT, "%.0f µs", e.getKey() * 1e6);
      }
    }
    return "?";
  }
}
