package io.tpotstream.bench.jvm;

import io.tpotstream.app.cli.PrimingSimulator;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.proxy.ProxyConfig;
import io.tpotstream.proxy.TpotProxy;
import io.tpotstream.proxy.http.Upstream;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * {@code tpot proxy} in a JVM of its own: {@code <upstream> <bootstrap> <topic>}. Starts the proxy
 * (request ids from {@code X-Request-Id}, so that its events match the simulator's truth), waits
 * until it publishes, reports {@code ready}; then answers stdin lines: {@code cpu} reports the
 * process CPU time and the events published so far, {@code heap} the heap in use after a full GC
 * with the events published and dropped so far, {@code stop} closes the proxy (final heartbeats)
 * and reports {@code result}.
 */
public final class ProxyChild {
  private ProxyChild() {}

  /** Where the proxy listens. */
  public record Ready(int port, int metricsPort, String producerId) {}

  /** What the proxy did and cost. */
  public record Result(
      long published, long dropped, long chunks, long maxAddedNs, ProcessMeter.Costs costs) {}

  public static void main(String[] args) throws Exception {
    TpotProxy proxy =
        TpotProxy.start(
            ProxyConfig.of(0, Upstream.parse(args[0]))
                .withMetricsPort(0)
                .withRunId("bench-b5")
                .withRequestIdHeader("X-Request-Id")
                .withDrainTimeout(Duration.ofSeconds(10))
                // primed as `tpot proxy` is by default
                .withPrime(Duration.ofSeconds(2)),
            KafkaSettings.of(args[1]).withTopic(args[2]).withSetupTimeout(Duration.ofSeconds(30)),
            new PrimingSimulator());
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!proxy.events().connected() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    ProcessMeter meter = ProcessMeter.start();
    ChildJvm.report("ready", new Ready(proxy.port(), proxy.metricsPort(), proxy.producerId()));
    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = stdin.readLine()) != null && !line.equals("stop")) {
      if (line.equals("cpu")) {
        ChildJvm.report(
            "cpu",
            Map.of(
                "cpuNs",
                ProcessMeter.processCpuNs(),
                "published",
                proxy.events().published(),
                "dropped",
                proxy.events().dropped()));
      } else if (line.equals("heap")) {
        ChildJvm.report(
            "heap",
            Map.of(
                "heapBytes",
                ProcessMeter.heapAfterGc(),
                "published",
                proxy.events().published(),
                "dropped",
                proxy.events().dropped()));
      }
    }
    proxy.close();
    meter.close();
    ChildJvm.report(
        "result",
        new Result(
            proxy.events().published(),
            proxy.events().dropped(),
            proxy.metrics().chunksForwarded(),
            proxy.metrics().maxAddedNs(),
            meter.costs()));
    System.exit(0);
  }
}
