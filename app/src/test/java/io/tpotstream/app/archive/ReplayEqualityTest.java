package io.tpotstream.app.archive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.archive.ArchiveReader;
import io.tpotstream.archive.ArchivedRecord;
import io.tpotstream.archive.Exporter;
import io.tpotstream.archive.Replayer;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.stats.HistogramCodec;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8's equality: a live run's summaries, the summaries of its exported-then-replayed events in
 * a topic with another partition count, and {@code stats} on the exported file are identical per
 * (series, window), encoded histograms included; and the producer's own end-of-run table (TPOT,
 * TTFT, request TPOT, E2E, request counts) equals its windows merged.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class ReplayEqualityTest {
  private static final int REQUESTS_PER_MODEL = 12;
  private static final StageSettings WINDOWS =
      new StageSettings(
          Duration.ofSeconds(2),
          Duration.ZERO,
          List.of(),
          StageSettings.DEFAULT_REQUEST_TIMEOUT,
          StageSettings.DEFAULT_PRODUCER_TIMEOUT);

  @Test
  void liveReplayedAndOfflineSummariesAreIdentical(TestKafka kafka, @TempDir Path dir)
      throws Exception {
    String live = TestKafka.uniqueName("eq-live");
    kafka.createTopic(live, 3, Map.of("retention.ms", "-1"));

    RunResult run;
    try (Simulator simulator = Simulator.start(simulatorOnFreePort())) {
      Map<String, String> overrides =
          Map.of(
              "base_url", simulator.baseUrl(),
              "models", "model-a,model-c",
              "concurrency", "6",
              "total_requests", Integer.toString(REQUESTS_PER_MODEL),
              "max_tokens", "60",
              "api_key", "k",
              "warmup", "0");
      run =
          Producer.start(
                  ConfigLoader.load(null, overrides, Map.of(), w -> {}),
                  KafkaSettings.of(kafka.bootstrapServers()).withTopic(live))
              .result()
              .get();
    }
    assertEquals(
        2 * REQUESTS_PER_MODEL,
        run.models().stream().mapToLong(m -> m.completed() + m.failed()).sum());

    Map<String, String> liveSummaries = aggregate(kafka, live, "eq-app-1");

    Path file = dir.resolve("live.jsonl.gz");
    Properties client = new Properties();
    client.put("bootstrap.servers", kafka.bootstrapServers());
    new Exporter(new Exporter.Settings(client, live, file, null, null, false), Progress.quiet())
        .run();

    String replayed = TestKafka.uniqueName("eq-replayed");
    new Replayer(new Replayer.Settings(client, file, replayed, 0, 2), Progress.quiet()).run();
    Map<String, String> replayedSummaries = aggregate(kafka, replayed, "eq-app-2");

    List<String> problems = new ArrayList<>();
    List<ArchivedRecord> archived =
        ArchiveReader.readInReplayOrder(file, (line, reason) -> problems.add(line + reason));
    // offline on one thread, and on three (dealt out as a replay to three partitions would)
    Map<String, String> offlineOne =
        byKey(OfflineStats.computeArchived(archived, WINDOWS, problems::add, null, 1));
    Map<String, String> offlineThree =
        byKey(OfflineStats.computeArchived(archived, WINDOWS, problems::add, null, 3));
    assertEquals(List.of(), problems);

    assertTrue(liveSummaries.size() >= 2, "several windows: " + liveSummaries.keySet());
    assertEquals(liveSummaries, replayedSummaries);
    assertEquals(liveSummaries, offlineOne);
    assertEquals(liveSummaries, offlineThree);

    // the producer's own end-of-run table, from its own measurements, says what the windows say
    // (one set of per-request rules: common RequestRules)
    List<WindowSummary> windows =
        OfflineStats.computeArchived(archived, WINDOWS, problems::add, null, 1);
    for (ModelResult model : run.models()) {
      LatencyHistogram tpot = new LatencyHistogram();
      LatencyHistogram ttft = new LatencyHistogram();
      LatencyHistogram requestTpot = new LatencyHistogram();
      LatencyHistogram e2e = new LatencyHistogram();
      long started = 0;
      long completed = 0;
      long failed = 0;
      for (WindowSummary w : windows) {
        if (w.model().equals(model.model())) {
          tpot.add(HistogramCodec.decode(w.histograms().tpot()));
          ttft.add(HistogramCodec.decode(w.histograms().ttft()));
          requestTpot.add(HistogramCodec.decode(w.histograms().requestTpot()));
          e2e.add(HistogramCodec.decode(w.histograms().e2e()));
          started += w.requests().started();
          completed += w.requests().completed();
          failed += w.requests().failed();
        }
      }
      String m = model.model();
      assertTrue(model.tpot().count() > 100, m + ": TPOT samples " + model.tpot().count());
      assertEquals(model.started(), started, m + " started");
      assertEquals(model.completed(), completed, m + " completed");
      assertEquals(model.failed(), failed, m + " failed");
      assertEquals(model.tpot().summary(), tpot.summary(), m + " TPOT");
      assertEquals(model.ttft().summary(), ttft.summary(), m + " TTFT");
      assertEquals(model.requestTpot().summary(), requestTpot.summary(), m + " request TPOT");
      assertEquals(model.e2e().summary(), e2e.summary(), m + " E2E");
    }
  }

  private static Map<String, String> byKey(List<WindowSummary> summaries) {
    Map<String, String> byKey = new TreeMap<>();
    summaries.forEach(s -> byKey.put(key(s), WindowSummaryCodec.encodeToString(s)));
    return byKey;
  }

  /** Runs the aggregator over {@code input} until every request of the run is in a summary. */
  private static Map<String, String> aggregate(TestKafka kafka, String input, String applicationId)
      throws Exception {
    String output = input + "-summaries";
    Map<String, String> summaries = new TreeMap<>();
    try (Aggregator aggregator =
            Aggregator.start(
                AggregatorConfig.defaults(kafka.bootstrapServers())
                    .withTopics(input, output, input + "-dead")
                    .withApplicationId(applicationId + "-" + input)
                    .withStage(WINDOWS));
        KafkaConsumer<String, byte[]> consumer =
            new KafkaConsumer<>(kafka.consumerProps(output + "-reader"))) {
      consumer.subscribe(List.of(output));
      long[] finished = {0};
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  WindowSummary s = WindowSummaryCodec.decode(r.value());
                  String previous = summaries.put(key(s), new String(r.value()));
                  assertEquals(null, previous, "a (series, window) emitted twice: " + key(s));
                  finished[0] += s.requests().completed() + s.requests().failed();
                }
                return finished[0] == 2 * REQUESTS_PER_MODEL;
              });
    }
    return summaries;
  }

  private static String key(WindowSummary s) {
    return s.series() + "@" + s.windowStart();
  }

  private static SimulatorConfig simulatorOnFreePort() {
    return SimulatorConfig.defaults().withPort(0).withSeed(7L);
  }
}
