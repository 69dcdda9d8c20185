package io.tpotstream.bench.memory;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.fidelity.BenchProfiles;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProducerChild;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.bench.workload.Preloader;
import io.tpotstream.bench.workload.SummaryWatcher;
import io.tpotstream.bench.workload.SyntheticWorkload;
import io.tpotstream.bench.workload.WorkloadShape;
import io.tpotstream.common.Json;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * B4: heap after a full GC and state-store size of the aggregator and of the producer while they
 * work through many short requests, each in a JVM of its own: flat, or how it grows. "B4 producers"
 * ({@link ProducerChurnMemory}) does the same for the aggregator over a week of short-lived
 * producers, and series, coming and going.
 */
public final class MemoryGrowth {
  static final int PARTITIONS = 3;

  private MemoryGrowth() {}

  public static void run(BenchEnv env, BenchReport report) {
    long requests = env.pick(1_000_000L, 50_000L);
    report.section(
        "B4", "memory across " + BenchReport.count(requests) + " requests (heap after a full GC)");
    try {
      aggregator(env, report, requests);
      ProducerChurnMemory.run(env, report);
      if (!Boolean.getBoolean("tpot.bench.noproducer")) {
        producer(env, report, env.pick(1_000_000L, 10_000L));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static void aggregator(BenchEnv env, BenchReport report, long requests)
      throws InterruptedException {
    String servers = env.bootstrapServers();
    String input = BenchTopics.unique("bench-b4-events");
    String output = BenchTopics.unique("bench-b4-summaries");
    BenchTopics.create(servers, input, PARTITIONS);
    BenchTopics.create(servers, output, 1);
    Duration window = StageSettings.DEFAULT_WINDOW;
    long baseTsMs = (System.currentTimeMillis() / 3_600_000L - 48) * 3_600_000L;
    Preloader.Loaded loaded =
        Preloader.load(
            servers,
            input,
            new SyntheticWorkload(
                WorkloadShape.shortRequests(requests, PARTITIONS), window, baseTsMs));
    SyntheticWorkload.Summary w = loaded.workload();
    report.note(
        "aggregator: "
            + BenchReport.count(w.requests())
            + " requests (start, 2 tokens, end; 500 in flight over 20 models), "
            + BenchReport.count(w.records())
            + " records preloaded, then aggregated by the topology in its own JVM");
    List<Progress> samples = new ArrayList<>();
    String applicationId = BenchTopics.unique("bench-b4");
    List<String> args =
        List.of(
            servers,
            input,
            output,
            BenchTopics.unique("bench-b4-dead"),
            applicationId,
            Integer.toString(PARTITIONS),
            Long.toString(env.pick(3000L, 1000L)));
    try (ChildJvm child =
            ChildJvm.start(
                AggregatorProbe.class,
                env.childJvmOptions(),
                args,
                env.workDir().resolve("b4-aggregator.log"));
        SummaryWatcher watcher = new SummaryWatcher(servers, output);
        Admin admin = Admin.create(BenchTopics.adminProps(servers))) {
      Runnable drain = () -> drainSamples(child, admin, applicationId, samples);
      watcher.awaitLastWindow(
          w.lastWindowEndMs(), w.seriesInLastWindow(), Duration.ofMinutes(30), drain);
      // one more sample, taken after every window closed
      int before = samples.size();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (samples.size() == before && System.nanoTime() < deadline) {
        drain.run();
        Thread.sleep(100);
      }
      child.stop(Duration.ofSeconds(30));
    }
    if (samples.isEmpty()) {
      report.note("no samples from the aggregator");
      return;
    }
    double requestsPerRecord = w.requests() / (double) w.records();
    report.figure(
        "requests processed | heap after GC | stores: stage 1 | stage 2 | all", "(entries)");
    for (Progress p : thin(samples)) {
      Map<String, Long> entries = p.sample().entries();
      report.figure(
          "  " + BenchReport.count(Math.round(p.records() * requestsPerRecord)),
          String.format(
              Locale.ROOT,
              "%s | %s | %s | %s",
              BenchReport.mb(p.sample().heapBytes()),
              BenchReport.count(entries.get(AggregatorProbe.STORES.get(0))),
              BenchReport.count(entries.get(AggregatorProbe.STORES.get(1))),
              BenchReport.count(entries.values().stream().mapToLong(Long::longValue).sum())));
    }
    Progress peak = samples.get(0);
    for (Progress p : samples) {
      if (p.sample().heapBytes() > peak.sample().heapBytes()) {
        peak = p;
      }
    }
    Progress last = samples.get(samples.size() - 1);
    report.headline(
        "aggregator heap after GC",
        String.format(
            Locale.ROOT,
            "peak %s (at %s requests), %s once every window closed; stage 1 store at the end:"
                + " %s entries",
            BenchReport.mb(peak.sample().heapBytes()),
            BenchReport.count(Math.round(peak.records() * requestsPerRecord)),
            BenchReport.mb(last.sample().heapBytes()),
            BenchReport.count(last.sample().entries().get(AggregatorProbe.STORES.get(0)))));
  }

  /** A probe sample and the input records processed (committed) when it came. */
  private record Progress(long records, AggregatorProbe.Sample sample) {}

  private static void drainSamples(
      ChildJvm child, Admin admin, String applicationId, List<Progress> samples) {
    try {
      ChildJvm.Line line;
      while ((line = child.next(Duration.ZERO)) != null) {
        if (line.kind().equals("sample")) {
          AggregatorProbe.Sample sample =
              Json.MAPPER.treeToValue(line.json(), AggregatorProbe.Sample.class);
          samples.add(new Progress(committed(admin, applicationId), sample));
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      throw new IllegalStateException("unreadable sample: " + e.getMessage(), e);
    }
  }

  /** Input offsets the application committed (under exactly-once, after its transactions). */
  private static long committed(Admin admin, String applicationId) {
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(applicationId)
              .partitionsToOffsetAndMetadata()
              .get(10, TimeUnit.SECONDS);
      return offsets.entrySet().stream()
          .filter(e -> !e.getKey().topic().startsWith(applicationId))
          .mapToLong(e -> e.getValue() == null ? 0 : e.getValue().offset())
          .sum();
    } catch (ExecutionException | TimeoutException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static void producer(BenchEnv env, BenchReport report, long requests)
      throws InterruptedException {
    String servers = env.bootstrapServers();
    String topic = BenchTopics.unique("bench-b4-producer");
    BenchTopics.create(servers, topic, PARTITIONS);
    report.note(
        "producer: "
            + BenchReport.count(requests)
            + " closed-loop requests of 2 tokens (1 ms apart), 64 at a time, in its own JVM");
    SimulatorConfig simConfig = BenchProfiles.simulator(4L, BenchProfiles.shortRequests(), 0);
    List<ProducerChild.HeapSample> samples = new ArrayList<>();
    ProducerChild.Result result;
    try (Simulator simulator = Simulator.start(simConfig)) {
      Map<String, String> keys = ProducerChild.keys("bench-b4", BenchProfiles.SHORT, 64, 2, "0");
      keys.put("base_url", simulator.baseUrl());
      keys.put("total_requests", Long.toString(requests));
      try (ChildJvm child =
          ProducerChild.start(
              env.producerJvmOptions(),
              servers,
              env.pick(5000L, 1000L),
              List.of(new ProducerChild.RunSpec(topic, keys)),
              env.workDir().resolve("b4-producer.log"))) {
        long deadline = System.nanoTime() + Duration.ofMinutes(60).toNanos();
        ProducerChild.Result done = null;
        while (done == null) {
          if (System.nanoTime() > deadline) {
            throw child.failure("did not finish within 60 minutes");
          }
          ChildJvm.Line line = child.next(Duration.ofSeconds(1));
          if (line == null) {
            if (!child.isAlive()) {
              throw child.failure("exited before reporting its result");
            }
            continue;
          }
          if (line.kind().equals("heap")) {
            samples.add(Json.MAPPER.treeToValue(line.json(), ProducerChild.HeapSample.class));
          } else if (line.kind().equals("result")) {
            done = Json.MAPPER.treeToValue(line.json(), ProducerChild.Result.class);
          }
        }
        result = done;
        child.waitFor(Duration.ofSeconds(30));
      } catch (IOException e) {
        throw new IllegalStateException("unreadable report from the producer: " + e, e);
      }
    }
    report.figure(
        "producer finished",
        BenchReport.count(result.completed())
            + " requests in "
            + BenchReport.seconds(result.elapsedNs())
            + String.format(
                Locale.ROOT,
                " (%,.0f requests/s)",
                result.completed() / (result.elapsedNs() / 1e9)));
    if (samples.isEmpty()) {
      report.note("no heap samples from the producer");
      return;
    }
    report.figure("requests finished | heap after GC", "");
    for (ProducerChild.HeapSample s : thin(samples)) {
      report.figure("  " + BenchReport.count(s.finished()), BenchReport.mb(s.heapBytes()));
    }
    ProducerChild.HeapSample first = samples.get(Math.min(samples.size() - 1, samples.size() / 5));
    ProducerChild.HeapSample peak = samples.get(0);
    for (ProducerChild.HeapSample s : samples) {
      if (s.heapBytes() > peak.heapBytes()) {
        peak = s;
      }
    }
    ProducerChild.HeapSample last = samples.get(samples.size() - 1);
    report.headline(
        "producer heap after GC",
        growth(first.heapBytes(), last.heapBytes(), last.finished() - first.finished())
            + "; peak "
            + BenchReport.mb(peak.heapBytes()));
  }

  /** At most 8 samples, evenly spaced, always with the last. */
  static <T> List<T> thin(List<T> all) {
    if (all.size() <= 8) {
      return all;
    }
    List<T> picked = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      picked.add(all.get(i * (all.size() - 1) / 7));
    }
    picked.add(all.get(all.size() - 1));
    return picked;
  }

  /** From one heap figure to another; the slope only over enough requests to mean something. */
  static String growth(long fromBytes, long toBytes, long requests) {
    String text =
        BenchReport.mb(fromBytes)
            + " -> "
            + BenchReport.mb(toBytes)
            + " over the last "
            + BenchReport.count(requests)
            + " requests";
    if (requests < 200_000) {
      return text;
    }
    double perHundredK = (toBytes - fromBytes) / (requests / 100_000.0);
    return text + String.format(Locale.ROOT, " (%+.2f MB per 100,000 requests)", perHundredK / 1e6);
  }
}
