package io.tpotstream.producer.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Profiles;
import io.tpotstream.simulator.truth.ChunkTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every chunk the simulator sent is measured once, in order, and can be matched with the
 * simulator's own record of it by (request id, seq): the basis of benchmark B2, which compares the
 * measured gaps with the sent ones (how close they are is a benchmark, not a test: see
 * BENCHMARKS.md, B2 "stall").
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class FidelityTest {
  static final String PROFILE =
      """
      {"models": {"steady-5ms": {"ttft": 30, "gap": 5, "fixedStalls": [{"beforeSeq": 100, "gapMs": 150}]}}}
      """;

  @Test
  void everyChunkSentIsMeasuredOnceInOrderAndMatchesTheTruthBySeq(TestKafka kafka)
      throws Exception {
    SimulatorConfig config = SimulatorConfig.defaults().withPort(0).withSeed(5L).withEventLoops(1);
    for (var e : Profiles.parse(PROFILE).entrySet()) {
      config = config.withProfile(e.getKey(), e.getValue());
    }
    try (Simulator simulator = Simulator.start(config)) {
      Map<String, String> keys =
          Map.of("total_requests", "2", "concurrency", "2", "max_tokens", "200");
      Runs.Finished run = Runs.run(kafka, simulator.baseUrl(), "steady-5ms", keys);

      Map<String, List<TokenEvent>> requests = TopicReader.byRequest(run.records());
      assertEquals(2, requests.size());
      for (Map.Entry<String, List<TokenEvent>> r : requests.entrySet()) {
        List<TokenEvent> tokens =
            r.getValue().stream().filter(e -> e.type() == EventType.TOKEN).toList();
        RequestTruth truth =
            simulator.truth().awaitEnd(r.getKey(), Duration.ofSeconds(10)).orElseThrow();
        assertEquals(200, tokens.size());
        assertEquals(200, truth.chunks().size());
        for (int i = 0; i < tokens.size(); i++) {
          ChunkTruth sent = truth.chunks().get(i);
          assertEquals(i, tokens.get(i).seq(), "token events in seq order");
          assertEquals(sent.seq(), tokens.get(i).seq(), "the truth's chunk i is seq i");
          assertEquals("producer", tokens.get(i).source());
          if (i > 0) {
            assertTrue(
                tokens.get(i).elapsedNs() >= tokens.get(i - 1).elapsedNs(),
                "arrival times never go back");
          }
        }
      }
      // the producer's own table has every gap of both requests
      assertEquals(398, run.result().models().get(0).tpot().count());
    }
  }
}
