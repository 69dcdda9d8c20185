package io.tpotstream.bench.throughput;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.bench.BenchEnv;
import io.tpotstream.bench.BenchReport;
import io.tpotstream.bench.recompute.FreshAggregate;
import io.tpotstream.bench.workload.BenchTopics;
import io.tpotstream.bench.workload.Preloader;
import io.tpotstream.bench.workload.SummaryWatcher;
import io.tpotstream.bench.workload.SyntheticWorkload;
import io.tpotstream.bench.workload.WorkloadShape;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * B1: how fast the aggregator turns a preloaded topic of token events into summaries, next to a
 * plain consumer reading the same topic in the same run: end to end (from its start to the last
 * window's summaries, start-up included) and in steady state (the events after the first window,
 * over the time from the first summary to the last).
 */
public final class AggregatorThroughput {
  public static final int PARTITIONS = 3;

  private AggregatorThroughput() {}

  public static void run(BenchEnv env, BenchReport report) {
    // ten million events in a full run: what is measured is the steady rate users wait for, not
    // start-up
    run(env, report, env.pick(10_000_000L, 500_000L));
    FreshAggregate.run(env, report, env.pick(10_000_000L, 200_000L));
  }

  /** B1 with about {@code target} records. */
  static void run(BenchEnv env, BenchReport report, long target) {
    report.section(
        "B1", "aggregator throughput (" + BenchReport.count(target) + " preloaded events)");
    String topic = BenchTopics.unique("bench-b1-events");
    Duration window = StageSettings.DEFAULT_WINDOW;
    Preloader.Loaded loaded = preload(env, topic, target, PARTITIONS, window);
    SyntheticWorkload.Summary w = loaded.workload();
    report.note(
        String.format(
            "%s records: %s requests over 20 models (64-448 tokens at 50 tokens/s, 256 in flight,"
                + " 1%% cut short), %s heartbeats, %s s of event time, %d partitions,"
                + " %.0f bytes/event of JSON",
            BenchReport.count(w.records()),
            BenchReport.count(w.requests()),
            BenchReport.count(w.heartbeats()),
            BenchReport.count((w.lastTsMs() - w.firstTsMs()) / 1000),
            PARTITIONS,
            loaded.bytes() / (double) w.records()));
    report.figure(
        "preload (KafkaProducer, lz4, acks=all)",
        BenchReport.perSecond(loaded.recordsPerSecond(), "events"));

    PlainConsumer.Read plain = PlainConsumer.readAll(env.bootstrapServers(), topic, false);
    report.headline("plain KafkaConsumer (bytes only)", rate(plain));
    PlainConsumer.Read decoded = PlainConsumer.readAll(env.bootstrapServers(), topic, true);
    report.figure("plain KafkaConsumer + JSON decode", rate(decoded));

    Run eos = aggregate(env, topic, w, window, StreamsConfig.EXACTLY_ONCE_V2, Map.of());
    report.headline(
        "aggregator end to end, exactly_once_v2 (default)",
        BenchReport.perSecond(eos.endToEnd(w), "events")
            + " ("
            + BenchReport.count(w.records())
            + " from its start to the last window's summaries in "
            + BenchReport.seconds(eos.totalNs)
            + ")");
    report.headline(
        "aggregator steady state (first summary to the last)",
        BenchReport.perSecond(eos.steady(w), "events")
            + " ("
            + BenchReport.count(w.recordsFrom(w.firstWindowEndMs()))
            + " events after the first window in "
            + BenchReport.seconds(eos.totalNs - eos.firstSummaryNs)
            + ")");
    report.figure(
        "  of which start-up (until Streams is RUNNING)", BenchReport.seconds(eos.runningNs));
    report.figure("  first summary out after", BenchReport.seconds(eos.firstSummaryNs));
    report.headline(
        "aggregator / plain consumer: end to end, steady state",
        String.format(
            java.util.Locale.ROOT,
            "%.2f, %.2f",
            eos.endToEnd(w) / plain.perSecond(),
            eos.steady(w) / plain.perSecond()));
    report.figure(
        "summaries out",
        BenchReport.count(eos.summaries)
            + " ("
            + BenchReport.count(w.seriesWindows())
            + " series-windows in the input)");
    if (!env.quick() || Boolean.getBoolean("tpot.bench.variants")) {
      // the same JVM again: these runs find Streams' code compiled, so compare them with each other
      report.note(
          "settings compared (each a fresh application over the same topic, JIT warm; end to end,"
              + " steady state):");
      variant(env, report, topic, w, window, "  default again", Map.of());
      variant(
          env,
          report,
          topic,
          w,
          window,
          "  num.stream.threads=1",
          Map.of(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1"));
      variant(
          env,
          report,
          topic,
          w,
          window,
          "  commit.interval.ms=100 (the default before live commits)",
          Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100"));
      variant(
          env,
          report,
          topic,
          w,
          window,
          "  max.poll.records=2000, buffered.records.per.partition=10000",
          Map.of(
              StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG),
              "2000",
              StreamsConfig.BUFFERED_RECORDS_PER_PARTITION_CONFIG,
              "10000"));
      variant(
          env,
          report,
          topic,
          w,
          window,
          "  processing.guarantee=at_least_once",
          Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE));
      variant(
          env,
          report,
          topic,
          w,
          window,
          "  fetch.max.bytes=100 MB, max.partition.fetch.bytes=8 MB (default 50 MB, 1 MB)",
          Map.of(
              StreamsConfig.consumerPrefix(ConsumerConfig.FETCH_MAX_BYTES_CONFIG),
              Integer.toString(100 << 20),
              StreamsConfig.consumerPrefix(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG),
              Integer.toString(8 << 20)));
      otherPartitionCount(env, report, target, window, 6);
    }
  }

  /**
   * B1's synthetic workload of about {@code target} records, a day old, loaded into {@code topic}
   * (created with {@code partitions} partitions).
   */
  private static Preloader.Loaded preload(
      BenchEnv env, String topic, long target, int partitions, Duration window) {
    BenchTopics.create(env.bootstrapServers(), topic, partitions);
    long baseTsMs = (System.currentTimeMillis() / 3_600_000L - 24) * 3_600_000L;
    SyntheticWorkload workload =
        new SyntheticWorkload(WorkloadShape.chat(target, partitions), window, baseTsMs);
    return Preloader.load(env.bootstrapServers(), topic, workload);
  }

  /**
   * The same workload in a topic of {@code partitions} partitions (the default for a new input
   * topic is {@link #PARTITIONS}): the plain consumer and the aggregator on it, fresh names.
   */
  private static void otherPartitionCount(
      BenchEnv env, BenchReport report, long target, Duration window, int partitions) {
    String topic = BenchTopics.unique("bench-b1-events-p" + partitions);
    SyntheticWorkload.Summary w = preload(env, topic, target, partitions, window).workload();
    PlainConsumer.Read plain = PlainConsumer.readAll(env.bootstrapServers(), topic, false);
    Run run = aggregate(env, topic, w, window, StreamsConfig.EXACTLY_ONCE_V2, Map.of());
    report.figure(
        "  " + partitions + " input partitions (the same workload in its own topic)",
        BenchReport.perSecond(run.endToEnd(w), "events")
            + ", "
            + BenchReport.perSecond(run.steady(w), "events")
            + String.format(
                java.util.Locale.ROOT,
                " (%s; plain consumer %s: %.2f, %.2f)",
                BenchReport.seconds(run.totalNs),
                BenchReport.perSecond(plain.perSecond(), "events"),
                run.endToEnd(w) / plain.perSecond(),
                run.steady(w) / plain.perSecond()));
  }

  private static void variant(
      BenchEnv env,
      BenchReport report,
      String topic,
      SyntheticWorkload.Summary w,
      Duration window,
      String label,
      Map<String, String> properties) {
    String guarantee =
        properties.getOrDefault(
            StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    Map<String, String> rest = new java.util.HashMap<>(properties);
    rest.remove(StreamsConfig.PROCESSING_GUARANTEE_CONFIG);
    Run run = aggregate(env, topic, w, window, guarantee, rest);
    report.figure(
        label,
        BenchReport.perSecond(run.endToEnd(w), "events")
            + ", "
            + BenchReport.perSecond(run.steady(w), "events")
            + " ("
            + BenchReport.seconds(run.totalNs)
            + ")");
  }

  /**
   * One aggregator run, timed from its start: until Streams is RUNNING, until the first summary and
   * until the last window's summaries.
   */
  private record Run(long totalNs, long runningNs, long firstSummaryNs, long summaries) {
    /** Every record over the whole run, start-up included. */
    double endToEnd(SyntheticWorkload.Summary w) {
      return w.records() / (totalNs / 1e9);
    }

    /** The records after the first window over the time from the first summary to the last. */
    double steady(SyntheticWorkload.Summary w) {
      return w.recordsFrom(w.firstWindowEndMs()) / ((totalNs - firstSummaryNs) / 1e9);
    }
  }

  private static Run aggregate(
      BenchEnv env,
      String topic,
      SyntheticWorkload.Summary w,
      Duration window,
      String guarantee,
      Map<String, String> streamsProperties) {
    String output = BenchTopics.unique("bench-b1-summaries");
    BenchTopics.create(env.bootstrapServers(), output, 1);
    AggregatorConfig config =
        AggregatorConfig.defaults(env.bootstrapServers())
            .withTopics(topic, output, BenchTopics.unique("bench-b1-dead"))
            .withApplicationId(BenchTopics.unique("bench-b1"))
            .withStage(StageSettings.defaults().withWindow(window))
            .withProcessingGuarantee(guarantee)
            .withKafkaProperties(streamsProperties);
    try (SummaryWatcher watcher = new SummaryWatcher(env.bootstrapServers(), output)) {
      long startNs = System.nanoTime();
      long[] runningAt = {-1};
      try (Aggregator aggregator = Aggregator.start(config)) {
        SummaryWatcher.Seen seen =
            watcher.awaitLastWindow(
                w.lastWindowEndMs(),
                w.seriesInLastWindow(),
                Duration.ofMinutes(20),
                () -> {
                  if (runningAt[0] < 0 && aggregator.isRunning()) {
                    runningAt[0] = System.nanoTime();
                  }
                  if (aggregator.stopped().isDone()) {
                    aggregator.stopped().join();
                    throw new IllegalStateException("the aggregator stopped early");
                  }
                });
        return new Run(
            seen.lastWindowDoneNs() - startNs,
            runningAt[0] - startNs,
            seen.firstNs() - startNs,
            seen.summaries());
      }
    }
  }

  /** {@code 1,234,567 events/s (12,345,678 in 10.00 s)} */
  private static String rate(PlainConsumer.Read read) {
    return BenchReport.perSecond(read.perSecond(), "events")
        + " ("
        + BenchReport.count(read.records())
        + " in "
        + BenchReport.seconds(read.elapsedNs())
        + ")";
  }
}
