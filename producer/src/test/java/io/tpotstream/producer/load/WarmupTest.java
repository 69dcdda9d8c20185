package io.tpotstream.producer.load;

import static io.tpotstream.producer.testing.ScriptedServer.openAiStream;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.producer.result.ResultTable;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Warm-up requests come first, are real requests whose every event says {@code warmup: true}, and
 * are left out of the producer's own table; the run's own requests follow, as many as asked.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class WarmupTest {
  @Test
  void warmupRequestsAreMarkedAndLeftOutOfTheTable(TestKafka kafka) {
    try (ScriptedServer server =
        new ScriptedServer().on("w", Script.sse().write(openAiStream(3)))) {
      Map<String, String> keys =
          Map.of("warmup", "3req", "total_requests", "4", "concurrency", "2");
      Runs.Finished run = Runs.run(kafka, server.baseUrl(), "w", keys);

      Map<String, List<TokenEvent>> requests = TopicReader.byRequest(run.records());
      assertEquals(7, requests.size(), "3 warm-up requests, then the 4 asked for");
      String runId = run.result().runId();
      for (Map.Entry<String, List<TokenEvent>> r : requests.entrySet()) {
        boolean warm = r.getKey().startsWith(runId + "-w");
        assertEquals(5, r.getValue().size(), "start, 3 tokens, end: " + r.getKey());
        for (TokenEvent e : r.getValue()) {
          assertEquals(warm, e.inWarmup(), r.getKey() + " " + e.type());
          assertEquals("producer", e.source());
        }
      }
      assertEquals(
          List.of(
              runId + "-0",
              runId + "-1",
              runId + "-2",
              runId + "-3",
              runId + "-w0",
              runId + "-w1",
              runId + "-w2"),
          List.copyOf(requests.keySet()));
      // the warm-up's tickets are all taken first: with 2 workers, the run's first request takes
      // the slot a finished warm-up request left (its start cannot precede that end; the order
      // of starts on two event loops within a slot is not fixed)
      long firstWarmEnd =
          requests.entrySet().stream()
              .filter(r -> r.getKey().contains("-w"))
              .mapToLong(r -> r.getValue().get(r.getValue().size() - 1).ts())
              .min()
              .orElseThrow();
      long firstRunStart =
          requests.entrySet().stream()
              .filter(r -> !r.getKey().contains("-w"))
              .mapToLong(r -> r.getValue().get(0).ts())
              .min()
              .orElseThrow();
      assertTrue(
          firstWarmEnd <= firstRunStart,
          "first run start " + firstRunStart + " before any warm-up ended " + firstWarmEnd);

      ModelResult m = run.result().models().get(0);
      assertEquals(4, m.started(), "the table counts the run's own requests");
      assertEquals(8, m.tpot().count(), "4 requests x 2 gaps");
      assertEquals(3, run.result().warmupRequests());
      assertTrue(
          ResultTable.format(run.result())
              .contains(
                  "warm-up (--warmup 3req): 3 request(s) before these, left out of this table"));
      assertEquals(
          7 * 5,
          run.records().stream().filter(r -> r.event().type() != EventType.HEARTBEAT).count());
    }
  }
}
