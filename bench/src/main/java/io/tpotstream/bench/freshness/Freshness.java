package io.tpotstream.bench.freshness;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.fidelity.BenchProfiles;
import io.tpotstream.bench.jvm.ChildJvm;
import io.tpotstream.bench.jvm.ProducerChild;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.bench.workload.Preloader;
import io.tpotstream.bench.workload.SyntheticWorkload;
import io.tpotstream.bench.workload.WorkloadShape;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.sink.Sink;
import io.tpotstream.sink.SinkConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * B3: the live pipeline (producer in its own JVM against the simulator, aggregator and sink here):
 * the wall time from a window's end to its record in the metrics topic, as a reader of that topic
 * sees it (read_committed).
 */
public final class Freshness {
  static final Duration WINDOW = Duration.ofSeconds(1);
  static final int STREAMS = 100;
  static final int STARTUP_WINDOWS = 3;
  static final String RUN_ID = "bench-b3";

  private Freshness() {}

  public static void run(BenchEnv env, BenchReport report) {
    Duration runFor = env.pick(Duration.ofSeconds(90), Duration.ofSeconds(15));
    report.section(
        "B3",
        "freshness (window end to its record in the metrics topic; "
            + STREAMS
            + " streams of 50 tokens/s over 2 models, "
            + WINDOW.toSeconds()
            + " s windows, "
            + runFor.toSeconds()
            + " s)");
    measure(
        env,
        report,
        runFor,
        Map.of(),
        "window end to metrics record: p50 / p99 / max",
        "aggregator default (commits every 1 s, a live window's at once)");
    if (!env.quick()) {
      measure(
          env,
          report,
          runFor,
          Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100"),
          "same, aggregator committing every 100 ms",
          "commits every 100 ms, live windows at once");
    }
  }

  private static void measure(
      BenchEnv env,
      BenchReport report,
      Duration runFor,
      Map<String, String> streamsProperties,
      String label,
      String setting) {
    String servers = env.bootstrapServers();
    String events = BenchTopics.unique("bench-b3-events");
    String summaries = BenchTopics.unique("bench-b3-summaries");
    String metrics = BenchTopics.unique("bench-b3-metrics");
    BenchTopics.create(servers, events, 3);
    BenchTopics.create(servers, summaries, 1);
    BenchTopics.create(servers, metrics, 1);
    AggregatorConfig config =
        AggregatorConfig.defaults(servers)
            .withTopics(events, summaries, BenchTopics.unique("bench-b3-dead"))
            .withApplicationId(BenchTopics.unique("bench-b3"))
            .withStage(StageSettings.defaults().withWindow(WINDOW))
            .withKafkaProperties(streamsProperties);
    SinkConfig sinkConfig =
        SinkConfig.builder(servers)
            .inputTopic(summaries)
            .groupId(BenchTopics.unique("bench-b3-sink"))
            .csv(env.workDir().resolve("b3-summaries.csv"))
            .metricsTopic(metrics)
            .noPrometheus()
            .build();
    List<long[]> arrivals = Collections.synchronizedList(new ArrayList<>());
    AtomicLong lastWindowEnd = new AtomicLong(-1);
    AtomicBoolean reading = new AtomicBoolean(true);
    AtomicLong measureFrom = new AtomicLong(Long.MAX_VALUE);
    Thread reader =
        new Thread(
            () -> readMetrics(servers, metrics, arrivals, lastWindowEnd, reading),
            "bench-b3-metrics");
    SimulatorConfig simConfig =
        BenchProfiles.simulator(3L, BenchProfiles.fiftyTokensPerSecond(), 0);
    try (Simulator simulator = Simulator.start(simConfig);
        Aggregator aggregator = Aggregator.start(config);
        Sink sink = Sink.start(sinkConfig)) {
      reader.start();
      // a finished synthetic producer's events first: every Streams task, internal topic and
      // transaction is up before the measured run starts, as in a pipeline already running
      long warmBaseMs = System.currentTimeMillis() - 120_000;
      SyntheticWorkload.Summary warm =
          Preloader.load(
                  servers,
                  events,
                  new SyntheticWorkload(WorkloadShape.chat(5_000, 3), WINDOW, warmBaseMs))
              .workload();
      long warmDeadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
      while (lastWindowEnd.get() < warm.lastWindowEndMs() && System.nanoTime() < warmDeadline) {
        sink.awaitWindowEnd(warm.lastWindowEndMs(), Duration.ofMillis(200));
      }
      long measuredFromMs = System.currentTimeMillis();
      measureFrom.set(measuredFromMs);
      String models = "[\"" + BenchProfiles.CONSTANT + "\",\"" + BenchProfiles.LOGNORMAL + "\"]";
      // freshness from the first window on: the run measures from its first request (no warm-up)
      Map<String, String> keys = ProducerChild.keys(RUN_ID, models, STREAMS, 256, "0");
      keys.put("base_url", simulator.baseUrl());
      keys.put("duration", runFor.toSeconds() + "s");
      long producerDoneMs;
      try (ChildJvm child =
          ProducerChild.start(
              env.producerJvmOptions(),
              servers,
              0,
              List.of(new ProducerChild.RunSpec(events, keys)),
              env.workDir().resolve("b3-producer.log"))) {
        child.await("result", runFor.plusSeconds(90));
        child.waitFor(Duration.ofSeconds(30));
        producerDoneMs = System.currentTimeMillis();
      }
      // the final heartbeats close the last window at once
      long lastEnd = (producerDoneMs / WINDOW.toMillis()) * WINDOW.toMillis();
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (lastWindowEnd.get() < lastEnd - WINDOW.toMillis() && System.nanoTime() < deadline) {
        sink.awaitWindowEnd(lastEnd - WINDOW.toMillis(), Duration.ofMillis(500));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } finally {
      reading.set(false);
      try {
        reader.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    // the run's first windows wait for the producer's JVM to start: shown apart
    long firstWindowEnd = Long.MAX_VALUE;
    for (long[] a : arrivals) {
      if (a[1] > measureFrom.get()) {
        firstWindowEnd = Math.min(firstWindowEnd, a[1]);
      }
    }
    LatencyHistogram freshness = new LatencyHistogram();
    LatencyHistogram startUp = new LatencyHistogram();
    for (long[] a : arrivals) {
      if (a[1] > firstWindowEnd + STARTUP_WINDOWS * WINDOW.toMillis()) {
        freshness.recordMicros((a[0] - a[1]) * 1000);
      } else if (a[1] >= firstWindowEnd) {
        startUp.recordMicros((a[0] - a[1]) * 1000);
      }
    }
    if (freshness.count() == 0) {
      throw new IllegalStateException("no window of the measured run reached the metrics topic");
    }
    report.figure(
        setting + ": first " + STARTUP_WINDOWS + " s of windows (start-up), max",
        BenchReport.ms(startUp.maxMicros()) + " (" + startUp.count() + " records)");
    // how much of it is the wait for the heartbeat that closes a window, and how much the pipeline
    Map<Long, Long> closedAt = closingHeartbeats(servers, events);
    LatencyHistogram wait = new LatencyHistogram();
    LatencyHistogram pipeline = new LatencyHistogram();
    for (long[] a : arrivals) {
      Long closed = closedAt.get(a[1]);
      if (a[1] > firstWindowEnd + STARTUP_WINDOWS * WINDOW.toMillis() && closed != null) {
        wait.recordMicros((closed - a[1]) * 1000);
        pipeline.recordMicros((a[0] - closed) * 1000);
      }
    }
    report.figure(
        setting + ": window end to the heartbeat that closes it, p50 / p99 / max",
        BenchReport.msPercentiles(wait, 50, 99));
    report.figure(
        setting + ": that heartbeat to the metrics record (aggregator + sink), p50 / p99 / max",
        BenchReport.msPercentiles(pipeline, 50, 99));
    report.headline(
        label + " (after start-up)",
        BenchReport.msPercentiles(freshness, 50, 99)
            + " ("
            + BenchReport.count(freshness.count())
            + " records)");
  }

  /**
   * For each window end, when the information that closes it was in Kafka: on every partition the
   * {@code ts} of the first heartbeat whose watermark passed the end (or that was final), and the
   * latest of those over the partitions.
   */
  private static Map<Long, Long> closingHeartbeats(String servers, String topic) {
    Map<Integer, List<long[]>> beats = new java.util.HashMap<>();
    try (KafkaConsumer<byte[], byte[]> consumer = BenchTopics.consumer(servers)) {
      List<org.apache.kafka.common.TopicPartition> parts =
          BenchTopics.assignFromStart(consumer, topic);
      Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(parts);
      long expected = end.values().stream().mapToLong(Long::longValue).sum();
      long read = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (read < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          read++;
          io.tpotstream.common.event.TokenEvent e =
              io.tpotstream.common.event.TokenEventCodec.decode(r.value());
          // the measured producer's heartbeats (the warm-up producer is final long before)
          if (e.type() == io.tpotstream.common.event.EventType.HEARTBEAT
              && RUN_ID.equals(e.runId())) {
            long watermark = e.finalHeartbeat() ? Long.MAX_VALUE : e.watermark();
            beats
                .computeIfAbsent(r.partition(), p -> new ArrayList<>())
                .add(new long[] {e.ts(), watermark});
          }
        }
      }
    }
    Map<Long, Long> closedAt = new java.util.HashMap<>();
    long windowMs = WINDOW.toMillis();
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (List<long[]> list : beats.values()) {
      for (long[] b : list) {
        first = Math.min(first, b[0]);
        last = Math.max(last, b[0]);
      }
    }
    for (long endMs = (first / windowMs + 1) * windowMs; endMs <= last; endMs += windowMs) {
      long latest = Long.MIN_VALUE;
      for (List<long[]> list : beats.values()) {
        long at = Long.MAX_VALUE;
        for (long[] b : list) {
          if (b[1] >= endMs && b[0] < at) {
            at = b[0];
          }
        }
        latest = Math.max(latest, at);
      }
      if (latest != Long.MAX_VALUE) {
        closedAt.put(endMs, latest);
      }
    }
    return closedAt;
  }

  private static void readMetrics(
      String servers,
      String topic,
      List<long[]> arrivals,
      AtomicLong lastWindowEnd,
      AtomicBoolean reading) {
    try (KafkaConsumer<byte[], byte[]> consumer = BenchTopics.consumer(servers)) {
      BenchTopics.assignFromStart(consumer, topic);
      while (reading.get()) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(20))) {
          long arrivedMs = System.currentTimeMillis();
          JsonNode record = Json.MAPPER.readTree(r.value());
          long windowEndMs = record.path("ts").asLong();
          arrivals.add(new long[] {arrivedMs, windowEndMs});
          lastWindowEnd.accumulateAndGet(windowEndMs, Math::max);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("unreadable metrics record: " + e.getMessage(), e);
    }
  }
}
