package io.tpotstream.producer;

import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.producer.config.WarmupBudget;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The default warm-up is the producer's own: its requests go to a simulator inside the process, and
 * the endpoint sees only the run's.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class LocalWarmupTest {
  @Test
  void theEndpointSeesOnlyTheRunsOwnRequests(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on(
          "m",
          Script.sse()
              .write("data: " + ROLE + "\n\n")
              .write("data: " + content("a") + "\n\n")
              .write("data: " + content("b") + "\n\n")
              .write("data: [DONE]\n\n"));
      Runs.Finished run =
          Runs.run(
              kafka,
              server.baseUrl(),
              "m",
              Map.of("warmup", "local", "total_requests", "5", "concurrency", "2"));

      assertEquals(5, server.received().size(), "not one warm-up request reached the endpoint");
      RunResult result = run.result();
      assertEquals("local", result.warmup());
      assertTrue(result.warmupRequests() > 0, "the warm-up's requests went to the simulator");
      // 5 requests x 256 max_tokens (the default): a tenth, 128 chunks, at most 10 s
      assertEquals(new WarmupBudget(Duration.ofSeconds(10), 128), result.warmupEnd().budget());
      assertTrue(
          result.warmupEnd().after().compareTo(Duration.ofSeconds(11)) < 0,
          "the local warm-up lasted " + result.warmupEnd().after());
      assertTrue(
          result.warmupEnd().chunks() >= 128 || result.warmupEnd().jitSettled(),
          "it ended at its budget of chunks or once the JIT had settled: " + result.warmupEnd());
      List<TopicReader.Rec> starts =
          run.records().stream().filter(r -> r.event().type() == EventType.START).toList();
      List<TopicReader.Rec> measured =
          starts.stream().filter(r -> !Boolean.TRUE.equals(r.event().warmup())).toList();
      assertEquals(5, measured.size(), "the run's own requests, after the warm-up");
      assertEquals(
          result.warmupRequests(),
          starts.size() - measured.size(),
          "every warm-up request's events are in the topic, marked warmup");
    }
  }

  @Test
  void aLocalWarmupStopsOnceItsChunksAreSpent(TestKafka kafka) {
    try (ScriptedServer server = new ScriptedServer()) {
      server.on(
          "m",
          Script.sse()
              .write("data: " + ROLE + "\n\n")
              .write("data: " + content("a") + "\n\n")
              .write("data: [DONE]\n\n"));
      // 100 requests x 256 max_tokens: a budget of 2,560 chunks, about 1.3 s of 20 warm-up streams
      RunResult result =
          Runs.run(
                  kafka,
                  server.baseUrl(),
                  "m",
                  Map.of("warmup", "local", "total_requests", "100", "concurrency", "20"))
              .result();
      var end = result.warmupEnd();
      assertEquals(2_560, end.budget().chunks());
      assertTrue(
          end.jitSettled() || end.chunks() >= 2_560,
          "ended by its chunks or the JIT, not by its time: " + end);
      assertTrue(end.after().compareTo(Duration.ofSeconds(10)) < 0, "before its 10 s: " + end);
    }
  }
}
