package io.tpotstream.producer.publish;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.broker.LocalKafka;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.Producer;
import io.tpotstream.producer.ProducerRun;
import io.tpotstream.producer.RunResult;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that goes away under a running producer and comes back on the same port and data
 * directory: the producer keeps streaming and measuring, holds the events meanwhile, publishes them
 * in order when the broker is back, and every token event is in the topic exactly once. The test
 * has a broker of its own (the shared one must not stop).
 */
@Tag("slow")
class BrokerOutageTest {
  static final String PROFILE =
      """
      {"models": {"steady-20ms": {"ttft": 20, "gap": 20}}}
      """;
  static final int REQUESTS = 40;
  static final int TOKENS = 50;

  @TempDir Path dataDir;

  @Test
  void everyTokenEventIsInTheTopicExactlyOnceAfterTheBrokerCameBack() {
    SimulatorConfig config = SimulatorConfig.defaults().withPort(0).withSeed(3L).withEventLoops(1);
    for (var e : Profiles.parse(PROFILE).entrySet()) {
      config = config.withProfile(e.getKey(), e.getValue());
    }
    LocalKafka kafka = LocalKafka.create(0, dataDir).start();
    try (Simulator simulator = Simulator.start(config)) {
      String topic = "outage";
      ProducerRun run =
          Producer.start(
              Runs.config(
                  Map.of(
                      "base_url", simulator.baseUrl(),
                      "models", "steady-20ms",
                      "concurrency", "4",
                      "total_requests", Integer.toString(REQUESTS),
                      "max_tokens", Integer.toString(TOKENS))),
              KafkaSettings.of(kafka.bootstrapServers())
                  .withTopic(topic)
                  .withPartitions(Runs.PARTITIONS)
                  .withSetupTimeout(Duration.ofSeconds(30)));
      await().atMost(Duration.ofSeconds(60)).until(() -> run.eventsPublished() >= 100);

      kafka.stop();
      // the run goes on without Kafka: events pile up in the outage buffer
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> run.progress().heldEvents() >= 300 || run.result().isDone());
      assertTrue(!run.result().isDone(), "the run must still be going while the broker is away");
      kafka.start();

      RunResult result = run.result().join();
      assertEquals(1, result.outages().count(), "one outage ridden out");
      assertTrue(result.outages().maxHeld() >= 300, "events were held: " + result.outages());
      assertEquals(REQUESTS, result.models().get(0).completed());

      List<TopicReader.Rec> records =
          TopicReader.readUntilFinal(kafka.bootstrapServers(), topic, Runs.PARTITIONS);
      Map<String, List<TokenEvent>> requests = TopicReader.byRequest(records);
      assertEquals(REQUESTS, requests.size());
      long tokens = 0;
      for (Map.Entry<String, List<TokenEvent>> r : requests.entrySet()) {
        Map<Integer, Integer> perSeq = new TreeMap<>();
        TokenEvent end = null;
        for (TokenEvent e : r.getValue()) {
          if (e.type() == EventType.TOKEN) {
            perSeq.merge(e.seq(), 1, Integer::sum);
            tokens++;
          } else if (e.type() == EventType.END) {
            end = e;
          }
        }
        assertEquals(TOKENS, end.seq(), r.getKey() + " ended after all its chunks");
        for (int seq = 0; seq < TOKENS; seq++) {
          assertEquals(1, perSeq.getOrDefault(seq, 0), r.getKey() + " seq " + seq);
        }
        assertEquals(TOKENS, perSeq.size(), r.getKey());
      }
      assertEquals((long) REQUESTS * TOKENS, tokens);
      assertEquals(
          records.stream().filter(r -> r.event().type() != EventType.HEARTBEAT).count(),
          result.eventsPublished(),
          "every event acknowledged is in the topic once");
      HeartbeatTest.assertHeartbeatContract(records, Runs.PARTITIONS, result.producerId());
    } finally {
      kafka.stop();
    }
  }
}
