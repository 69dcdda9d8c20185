package io.tpotstream.producer.publish;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TopicReader.Rec;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Watermark heartbeats: one to every partition before the first request, rising every second, and a
 * final one on every partition after the run's last events; no event below a sent watermark.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class HeartbeatTest {
  static final ScriptedServer server = new ScriptedServer();

  @AfterAll
  static void stop() {
    server.close();
  }

  /** Checks the heartbeat contract on every partition of a finished run's topic. */
  /** How far the producer's anchored clock may run ahead of the broker's (the same machine's). */
  static final long CLOCK_SLACK_MS = 1_000;

  public static void assertHeartbeatContract(List<Rec> records, int partitions, String producerId) {
    long firstEventTs =
        records.stream()
            .filter(r -> r.event().type() != EventType.HEARTBEAT)
            .mapToLong(r -> r.event().ts())
            .min()
            .orElseThrow(() -> new AssertionError("no events at all"));
    long lastEventTs =
        records.stream()
            .filter(r -> r.event().type() != EventType.HEARTBEAT)
            .mapToLong(r -> r.event().ts())
            .max()
            .orElseThrow();
    for (int p = 0; p < partitions; p++) {
      int partition = p;
      List<Rec> log = records.stream().filter(r -> r.partition() == partition).toList();
      TokenEvent first = log.get(0).event();
      assertEquals(
          EventType.HEARTBEAT, first.type(), "partition " + p + " starts with a heartbeat");
      assertEquals(producerId, first.producerId());
      assertTrue(first.watermark() < firstEventTs, "the start heartbeat precedes the first event");
      TokenEvent last = log.get(log.size() - 1).event();
      assertTrue(last.finalHeartbeat(), "partition " + p + " ends with the final heartbeat");
      assertTrue(last.watermark() >= lastEventTs, "the final watermark covers every event");
      assertEquals(
          1,
          log.stream().filter(r -> r.event().finalHeartbeat()).count(),
          "one final per partition");
      long watermark = Long.MIN_VALUE;
      for (Rec r : log) {
        TokenEvent e = r.event();
        // the topic tpot created stamps records with the broker's append time: after the event
        assertTrue(
            r.timestamp() >= e.ts() - CLOCK_SLACK_MS, "appended after its ts: " + r.timestamp());
        if (e.type() == EventType.HEARTBEAT) {
          assertEquals(producerId, r.key());
          assertNotNull(e.clientPauseMaxUs());
          assertTrue(e.watermark() >= watermark, "watermarks never go back");
          watermark = e.watermark();
        } else {
          assertEquals(e.requestId(), r.key());
          assertTrue(e.ts() >= watermark, "no event below a watermark already sent: " + e);
        }
      }
    }
  }

  @Test
  void everyPartitionGetsStartRisingAndFinalHeartbeats(TestKafka kafka) {
    Script slow = Script.sse().write("data: " + ScriptedServer.ROLE + "\n\n");
    for (int i = 0; i < 25; i++) {
      slow.write("data: " + ScriptedServer.content("w" + i) + "\n\n").pause(100);
    }
    server.on("hb", slow.write("data: " + ScriptedServer.FINISH + "\n\ndata: [DONE]\n\n"));
    Runs.Finished run =
        Runs.run(kafka, server.baseUrl(), "hb", Map.of("total_requests", "4", "concurrency", "4"));

    assertHeartbeatContract(run.records(), Runs.PARTITIONS, run.result().producerId());
    assertEquals(
        4 * 27,
        run.records().stream().filter(r -> r.event().type() != EventType.HEARTBEAT).count());
    for (int p = 0; p < Runs.PARTITIONS; p++) {
      int partition = p;
      List<Long> watermarks =
          run.records().stream()
              .filter(r -> r.partition() == partition && r.event().type() == EventType.HEARTBEAT)
              .map(r -> r.event().watermark())
              .toList();
      // a ~2.5 s run: the start heartbeat, at least one per second after, and the final one
      assertTrue(watermarks.size() >= 4, "partition " + p + " heartbeats: " + watermarks);
      assertTrue(
          watermarks.get(watermarks.size() - 1) - watermarks.get(0) >= 2000,
          "watermarks rise with time: " + watermarks);
    }
    assertEquals(0, run.result().lateAtSource());
  }
}
