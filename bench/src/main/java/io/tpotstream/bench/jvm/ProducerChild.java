package io.tpotstream.bench.jvm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import io.tpotstream.app.run.SimulatorWarmup;
import io.tpotstream.common.Json;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.result.ModelResult;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The real producer in a JVM of its own: {@code <bootstrap> <heapSampleMs> <runs>}, where runs is a
 * JSON array of {@code {"topic": ..., "keys": {config key: value}}}. Runs them one after the other
 * in this JVM (so later runs find it warm); before each run after the first it waits for a line on
 * stdin, so that the parent can read the previous run's topic undisturbed. Reports {@code heap}
 * lines every {@code heapSampleMs} (0: none) and a {@code result} line per run.
 */
public final class ProducerChild {
  private ProducerChild() {}

  /** One run: the topic to publish to and its config keys. */
  public record RunSpec(String topic, Map<String, String> keys) {}

  /** One heap sample: requests finished so far and the heap after a full GC. */
  public record HeapSample(long finished, long heapBytes, long elapsedMs) {}

  /**
   * A run's outcome and what it cost this JVM.
   *
   * @param cpuTimeline pairs of (ms since the run started, process CPU ns since then), every 250 ms
   * @param costs what the JVM spent from the end of the run's warm-up (its start when none)
   * @param warmupChunks token chunks the run's warm-up streamed (0 when none)
   * @param warmupEndMs when the run's warm-up ended, ms since the run started (0 when none)
   * @param maxRssKb this JVM's maximum resident size at the run's end ({@code VmHWM}), in KiB
   * @param processCpuNs this JVM's CPU from its start to the run's end (start-up, warm-up and run:
   *     what a one-run {@code tpot produce} costs, less its shutdown)
   */
  public record Result(
      long eventsPublished,
      long heartbeats,
      long elapsedNs,
      long clientPauseMaxUs,
      long notSent,
      long lateAtSource,
      long started,
      long completed,
      long failed,
      Map<String, Long> errors,
      ProcessMeter.Costs costs,
      List<long[]> cpuTimeline,
      long loopLagMaxUs,
      long tokenChunks,
      long coalescedChunks,
      long warmupRequests,
      long warmupChunks,
      long warmupEndMs,
      long maxRssKb,
      long processCpuNs) {

    /**
     * Process CPU ns between {@code fromMs} and {@code toMs} of the run (the nearest samples), with
     * the span they cover.
     */
    public long[] cpuNsBetween(long fromMs, long toMs) {
      long[][] span = span(fromMs, toMs);
      if (span == null) {
        return new long[] {costs.cpuNs(), costs.wallNs() / 1_000_000};
      }
      return new long[] {span[1][1] - span[0][1], span[1][0] - span[0][0]};
    }

    /** Cores used on average between {@code fromMs} and {@code toMs} of the run. */
    public double coresBetween(long fromMs, long toMs) {
      long[][] span = span(fromMs, toMs);
      if (span == null) {
        return costs.coresUsed();
      }
      return (span[1][1] - span[0][1]) / ((span[1][0] - span[0][0]) * 1e6);
    }

    /**
     * The first timeline sample at or after {@code fromMs} and the last at or before {@code toMs};
     * null when they span no time.
     */
    private long[][] span(long fromMs, long toMs) {
      long[] from = null;
      long[] to = null;
      for (long[] point : cpuTimeline) {
        if (from == null && point[0] >= fromMs) {
          from = point;
        }
        if (point[0] <= toMs) {
          to = point;
        }
      }
      if (from == null || to == null || to[0] <= from[0]) {
        return null;
      }
      return new long[][] {from, to};
    }
  }

  /**
   * The config keys every benchmark run of the producer sets; the caller adds how long it runs
   * ({@code duration} or {@code total_requests}), {@code base_url} and the rest.
   */
  public static Map<String, String> keys(
      String runId, String models, int concurrency, int maxTokens, String warmup) {
    Map<String, String> keys = new LinkedHashMap<>();
    keys.put("run_id", runId);
    keys.put("models", models);
    keys.put("concurrency", Integer.toString(concurrency));
    keys.put("max_tokens", Integer.toString(maxTokens));
    keys.put("warmup", warmup);
    return keys;
  }

  /**
   * Starts this class in a JVM of its own with {@code jvmOptions}: {@code runs} one after the other
   * against {@code bootstrap}, a heap sample every {@code heapSampleMs} (0: none), its output also
   * in {@code log}.
   */
  public static ChildJvm start(
      List<String> jvmOptions, String bootstrap, long heapSampleMs, List<RunSpec> runs, Path log) {
    String specs;
    try {
      specs = Json.MAPPER.writeValueAsString(runs);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return ChildJvm.start(
        ProducerChild.class,
        jvmOptions,
        List.of(bootstrap, Long.toString(heapSampleMs), specs),
        log);
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    long heapSampleMs = Long.parseLong(args[1]);
    List<RunSpec> runs = Json.MAPPER.readValue(args[2], new TypeReference<List<RunSpec>>() {});
    BufferedReader stdin =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (int i = 0; i < runs.size(); i++) {
      if (i > 0 && stdin.readLine() == null) {
        break;
      }
      run(bootstrap, heapSampleMs, runs.get(i));
    }
    System.exit(0);
  }

  private static void run(String bootstrap, long heapSampleMs, RunSpec spec) throws Exception {
    ProducerConfig config =
        ConfigLoader.load(null, new LinkedHashMap<>(spec.keys()), Map.of(), System.err::println);
    KafkaSettings kafka =
        KafkaSettings.of(bootstrap)
            .withTopic(spec.topic())
            .withSetupTimeout(Duration.ofSeconds(30));
    ProcessMeter meter = ProcessMeter.start();
    long startNs = System.nanoTime();
    long startCpuNs = ProcessMeter.processCpuNs();
    List<long[]> cpu = new ArrayList<>();
    ProducerRun run = Producer.start(config, kafka, Producer.Outputs.NONE, SimulatorWarmup::start);
    long nextHeapMs = 0;
    long warmupEndMs = -1;
    while (!run.result().isDone()) {
      long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
      if (warmupEndMs < 0 && !run.progress().warmingUp()) {
        // what the JVM spends from here on is the run's own, after its warm-up
        warmupEndMs = config.warmup().none() ? 0 : elapsedMs;
        meter.close();
        meter = ProcessMeter.start();
      }
      cpu.add(new long[] {elapsedMs, ProcessMeter.processCpuNs() - startCpuNs});
      if (heapSampleMs > 0 && elapsedMs >= nextHeapMs) {
        ChildJvm.report(
            "heap",
            new HeapSample(run.progress().finished(), ProcessMeter.heapAfterGc(), elapsedMs));
        nextHeapMs = elapsedMs + heapSampleMs;
      }
      try {
        run.result().get(250, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // next sample
      }
    }
    RunResult r = run.result().join();
    meter.close();
    long started = 0;
    long completed = 0;
    long failed = 0;
    Map<String, Long> errors = new LinkedHashMap<>();
    for (ModelResult m : r.models()) {
      started += m.started();
      completed += m.completed();
      failed += m.failed();
      m.errors().forEach((k, v) -> errors.merge(k, v, Long::sum));
    }
    ChildJvm.report(
        "result",
        new Result(
            r.eventsPublished(),
            r.heartbeats(),
            r.elapsed().toNanos(),
            r.clientPauseMaxUs(),
            r.notSent(),
            r.lateAtSource(),
            started,
            completed,
            failed,
            errors,
            meter.costs(),
            cpu,
            r.loopLagMaxUs(),
            r.tokenChunks(),
            r.coalescedChunks(),
            r.warmupRequests(),
            r.warmupEnd() == null ? 0 : r.warmupEnd().chunks(),
            Math.max(0, warmupEndMs),
            ProcessMeter.maxResidentKb(),
            ProcessMeter.processCpuNs()));
  }
}
