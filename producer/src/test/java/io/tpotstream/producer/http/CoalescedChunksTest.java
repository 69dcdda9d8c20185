package io.tpotstream.producer.http;

import static io.tpotstream.producer.testing.ScriptedServer.FINISH;
import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
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
 * Chunks that came out of one socket read are published as coalesced (their near-zero gap says
 * nothing about the server), counted in the heartbeats, and every heartbeat carries the event
 * loops' worst lag.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class CoalescedChunksTest {
  /**
   * A stop-the-world pause (a full collection) halfway through one gap stalls the producer's event
   * loop as a long GC pause or a descheduled thread would: that gap, and only gaps that overlap a
   * stall, carry the client's lag, never more than the gap itself.
   */
  @Test
  void aGapTheClientStalledInCarriesTheClientsLag(TestKafka kafka) {
    long[] pauseNs = {0};
    Script stalled =
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .pause(100)
            .write("data: " + content("a") + "\n\n")
            .pause(100)
            .run(
                () -> {
                  long start = System.nanoTime();
                  System.gc();
                  pauseNs[0] = System.nanoTime() - start;
                })
            .pause(200)
            .write("data: " + content("b") + "\n\n")
            .pause(50)
            .write("data: " + FINISH + "\n\ndata: [DONE]\n\n");
    try (ScriptedServer server = new ScriptedServer().on("stalled", stalled)) {
      Runs.Finished run =
          Runs.run(kafka, server.baseUrl(), "stalled", Map.of("total_requests", "1"));

      List<TokenEvent> tokens =
          TopicReader.onlyRequestOf(run.records(), "stalled").stream()
              .filter(e -> e.type() == EventType.TOKEN)
              .toList();
      assertEquals(2, tokens.size());
      assertEquals(0, tokens.get(0).clientLagOrZero(), "the first chunk has no gap");
      long gapUs = (tokens.get(1).elapsedNs() - tokens.get(0).elapsedNs()) / 1000;
      long lagUs = tokens.get(1).clientLagOrZero();
      assertTrue(
          pauseNs[0] > 2_000_000, "the full collection stopped the world for more than 2 ms");
      assertTrue(
          lagUs > 1_000 && lagUs <= gapUs,
          "a → b overlapped the pause: lag " + lagUs + " µs in a gap of " + gapUs + " µs");
      assertEquals(1, run.result().touchedChunks());
    }
  }

  @Test
  void chunksOfOneReadAreMarkedCoalescedAndCountedInHeartbeats(TestKafka kafka) {
    Script burst =
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .pause(150)
            // three token chunks in one write: one read on the client
            .write(
                "data: "
                    + content("a")
                    + "\n\ndata: "
                    + content("b")
                    + "\n\ndata: "
                    + content("c")
                    + "\n\n")
            .pause(300)
            .write("data: " + content("d") + "\n\n")
            .pause(300)
            .write("data: " + FINISH + "\n\ndata: [DONE]\n\n");
    try (ScriptedServer server = new ScriptedServer().on("burst", burst)) {
      Runs.Finished run = Runs.run(kafka, server.baseUrl(), "burst", Map.of("total_requests", "1"));

      List<TokenEvent> tokens =
          TopicReader.onlyRequestOf(run.records(), "burst").stream()
              .filter(e -> e.type() == EventType.TOKEN)
              .toList();
      assertEquals(4, tokens.size());
      assertEquals(false, tokens.get(0).arrivedCoalesced(), "the first token has no chunk before");
      assertEquals(true, tokens.get(1).arrivedCoalesced(), "b came in a's read");
      assertEquals(true, tokens.get(2).arrivedCoalesced(), "c came in a's read");
      assertEquals(tokens.get(0).elapsedNs(), tokens.get(2).elapsedNs(), "one read, one time");

      long coalescedInTopic =
          run.records().stream()
              .filter(r -> r.event().type() == EventType.TOKEN && r.event().arrivedCoalesced())
              .count();
      List<TokenEvent> heartbeats =
          run.records().stream()
              .filter(r -> r.partition() == 0 && r.event().type() == EventType.HEARTBEAT)
              .map(TopicReader.Rec::event)
              .toList();
      assertEquals(
          coalescedInTopic,
          heartbeats.stream().mapToLong(TokenEvent::coalescedChunks).sum(),
          "the heartbeats count every coalesced chunk once");
      assertEquals(coalescedInTopic, run.result().coalescedChunks());
      assertEquals(4, run.result().tokenChunks());
      for (TokenEvent h : heartbeats) {
        assertNotNull(h.loopLagMaxUs(), "every heartbeat says how late the loops ran");
        assertEquals("producer", h.source());
      }
    }
  }
}
