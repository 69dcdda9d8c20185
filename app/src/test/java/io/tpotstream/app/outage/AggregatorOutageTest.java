package io.tpotstream.app.outage;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.Aggregator;
import io.tpotstream.aggregator.AggregatorConfig;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.app.cli.TpotCli;
import io.tpotstream.broker.LocalKafka;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.config.ConfigLoader;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.testkit.TestKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker outage longer than the producer timeout under a running producer and a running
 * aggregator: silence the broker did not confirm moves no clock, so the events the producer held
 * through it land in open windows, and the live summaries equal {@code tpot stats} over an export
 * of the same topic, none late. The test has a broker of its own (the shared one must not stop).
 */
@Tag("slow")
class AggregatorOutageTest {
  static final String PROFILE =
      """
      {"models": {"steady-20ms": {"ttft": 20, "gap": 20}}}
      """;
  static final int REQUESTS = 60;
  static final String TOPIC = "outage-events";

  @TempDir Path dir;

  @Test
  void anOutageLongerThanTheProducerTimeoutLosesNothing() {
    SimulatorConfig sim = SimulatorConfig.defaults().withPort(0).withSeed(5L).withEventLoops(1);
    for (var e : Profiles.parse(PROFILE).entrySet()) {
      sim = sim.withProfile(e.getKey(), e.getValue());
    }
    LocalKafka kafka = LocalKafka.create(0, dir.resolve("kafka")).start();
    StageSettings stage = StageSettings.defaults().withProducerTimeout(Duration.ofSeconds(5));
    AggregatorConfig config =
        AggregatorConfig.defaults(kafka.bootstrapServers())
            .withTopics(TOPIC, "outage-summaries", "outage-dead-letters")
            .withApplicationId("outage-aggregator")
            .withStage(stage)
            .withKafkaProperties(
                Map.of(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString()));
    try (Simulator simulator = Simulator.start(sim);
        Aggregator aggregator = Aggregator.start(config)) {
      ProducerRun run =
          Producer.start(
              ConfigLoader.load(
                  null,
                  Map.of(
                      "warmup", "0",
                      "base_url", simulator.baseUrl(),
                      "models", "steady-20ms",
                      "concurrency", "4",
                      "total_requests", Integer.toString(REQUESTS),
                      "max_tokens", "50"),
                  Map.of(),
                  w -> {}),
              KafkaSettings.of(kafka.bootstrapServers())
                  .withTopic(TOPIC)
                  .withSetupTimeout(Duration.ofSeconds(30)));
      await().atMost(Duration.ofSeconds(60)).until(() -> run.eventsPublished() >= 200);

      kafka.stop();
      // held for longer than the 5 s producer timeout (4 streams of 50 chunks a second)
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> run.progress().heldEvents() >= 2_000 || run.result().isDone());
      assertTrue(!run.result().isDone(), "the run must still be going while the broker is away");
      kafka.start();
      RunResult result = run.result().join();
      assertEquals(1, result.outages().count(), "one outage ridden out");
      assertEquals(REQUESTS, result.models().get(0).completed());

      List<String> live = summaries(kafka, config.outputTopic(), REQUESTS);
      Path archive = dir.resolve("outage.jsonl");
      TpotCli.Result export =
          tpot(
              "export",
              "--bootstrap-server",
              kafka.bootstrapServers(),
              "--topic",
              TOPIC,
              "--file",
              archive.toString());
      assertEquals(0, export.exit(), export.err());
      TpotCli.Result stats = tpot("stats", archive.toString(), "--format", "json");
      assertEquals(0, stats.exit(), stats.err());

      List<WindowSummary> decoded = live.stream().map(WindowSummaryCodec::decode).toList();
      assertEquals(0, decoded.stream().mapToLong(WindowSummary::lateSamples).sum(), "none late");
      assertEquals((long) REQUESTS * 49, decoded.stream().mapToLong(s -> s.tpot().count()).sum());
      assertEquals(stats.out().lines().toList(), live, "live equals stats over the export");
    } finally {
      kafka.stop();
    }
  }

  /** The summaries of {@code topic}, once they count {@code requests} completed requests. */
  private static List<String> summaries(LocalKafka kafka, String topic, int requests) {
    return new TestKafka(kafka.bootstrapServers(), "its own broker")
        .readUntil(
            topic,
            Duration.ofSeconds(90),
            read ->
                read.stream()
                        .map(WindowSummaryCodec::decode)
                        .mapToLong(s -> s.requests().completed())
                        .sum()
                    >= requests);
  }
}
