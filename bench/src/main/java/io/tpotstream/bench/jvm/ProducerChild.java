package io.tpotstream.bench.jvm;

import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.config.ProducerConfig;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.report.ModelResult;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The real producer in a JVM of its own: {@code <bootstrap> <topic> <heapSampleMs> key=value...}
 * (config keys as in a config file). Reports {@code heap} lines every {@code heapSampleMs} (0:
 * none) and a {@code result} line at the end; SIGTERM stops it cleanly as Ctrl-C stops {@code tpot
 * produce}.
 */
public final class ProducerChild {
  private ProducerChild() {}

  /** One heap sample: requests finished so far and the heap after a full GC. */
  public record HeapSample(long finished, long heapBytes, long elapsedMs) {}

  /** The run's outcome and what it cost this JVM. */
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
      ProcessMeter.Costs costs) {}

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    long heapSampleMs = Long.parseLong(args[2]);
    Map<String, String> keys = new LinkedHashMap<>();
    for (int i = 3; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      keys.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    ProducerConfig config = ConfigLoader.load(null, keys, Map.of(), System.err::println);
    KafkaSettings kafka =
        KafkaSettings.of(bootstrap).withTopic(topic).withSetupTimeout(Duration.ofSeconds(30));
    ProcessMeter meter = ProcessMeter.start();
    ProducerRun run = Producer.start(config, kafka);
    AtomicBoolean reported = new AtomicBoolean();
    run.stopOnShutdown(
        Duration.ofSeconds(30),
        result -> {
          if (reported.compareAndSet(false, true)) {
            report(result, meter);
          }
        });
    long startNs = System.nanoTime();
    while (!run.result().isDone()) {
      if (heapSampleMs > 0) {
        ChildJvm.report(
            "heap",
            new HeapSample(
                run.progress().finished(),
                ProcessMeter.heapAfterGc(),
                (System.nanoTime() - startNs) / 1_000_000));
      }
      try {
        run.result().get(heapSampleMs > 0 ? heapSampleMs : 1000, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // next sample
      }
    }
    RunResult result = run.result().join();
    if (reported.compareAndSet(false, true)) {
      report(result, meter);
    }
    System.exit(0);
  }

  private static void report(RunResult r, ProcessMeter meter) {
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
            meter.costs()));
  }
}
