package io.tpotstream.producer.http;

import static io.tpotstream.producer.testing.ScriptedServer.FINISH;
import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static io.tpotstream.producer.testing.ScriptedServer.usage;
import static io.tpotstream.producer.testing.TopicReader.onlyRequestOf;
import static io.tpotstream.producer.testing.TopicReader.types;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Timestamps as a plain client that reads lines sees them, through a real HTTP server writing exact
 * bytes: a token is stamped when its {@code data:} line arrives, even when the server sends the
 * blank line that ends the event with the next event, and a last event the close cut off before its
 * blank line is taken.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class SseStampsOverHttpTest {
  private static final long AB_MS = 300;
  private static final long BC_MS = 700;
  private static final long CD_MS = 100;

  @Test
  void gapsFollowTheDataLinesWritesNotTheBlankLinesThatCameWithTheNextEvent(TestKafka kafka) {
    // every write is one event's data line plus the blank line of the event before it
    Script late =
        Script.sse()
            .write("data: " + ROLE + "\n")
            .write("\ndata: " + content("a") + "\n")
            .pause(AB_MS)
            .write("\ndata: " + content("b") + "\n")
            .pause(BC_MS)
            .write("\ndata: " + content("c") + "\n")
            .pause(CD_MS)
            .write("\ndata: " + FINISH + "\n")
            .pause(CD_MS)
            .write("\ndata: " + usage(5, 3) + "\n\ndata: [DONE]\n\n");
    try (ScriptedServer server = new ScriptedServer().on("late-blank", late)) {
      Runs.Finished run =
          Runs.run(kafka, server.baseUrl(), "late-blank", Map.of("total_requests", "1"));

      List<TokenEvent> events = onlyRequestOf(run.records(), "late-blank");
      assertEquals(List.of("start", "token", "token", "token", "end"), types(events));
      long abMs = (events.get(2).elapsedNs() - events.get(1).elapsedNs()) / 1_000_000;
      long bcMs = (events.get(3).elapsedNs() - events.get(2).elapsedNs()) / 1_000_000;
      // stamped by their blank lines, a→b would be 700 ms and b→c 100 ms: the bounds lie halfway
      // between, with room for a token stamped late on a busy machine (a cold first request)
      assertTrue(abMs >= AB_MS - 150 && abMs < 500, "a→b " + abMs + " ms");
      assertTrue(bcMs >= 400 && bcMs < BC_MS + 300, "b→c " + bcMs + " ms");
      for (TokenEvent token : events.subList(1, 4)) {
        assertEquals(false, token.arrivedCoalesced(), "each data line came in its own read");
      }
      assertNull(events.get(4).errorClass());
      assertEquals("stop", events.get(4).finishReason());
    }
  }

  @Test
  void aFinalChunkWithoutItsBlankLineBeforeTheCloseCompletesTheRequest(TestKafka kafka) {
    Script cutShort =
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .write("data: " + content("a") + "\n\n")
            .pause(50)
            .write("data: " + content("b") + "\n\n")
            .pause(50)
            // the finish chunk, then the response ends: no blank line, no [DONE]
            .write("data: " + FINISH + "\n");
    Script lastTokenCut =
        Script.sse()
            .write("data: " + ROLE + "\n\n")
            .write("data: " + content("a") + "\n\n")
            .pause(50)
            .write("data: " + content("b") + "\n");
    try (ScriptedServer server =
        new ScriptedServer().on("no-blank", cutShort).on("token-cut", lastTokenCut)) {
      Runs.Finished run =
          Runs.run(
              kafka,
              server.baseUrl(),
              "no-blank,token-cut",
              Map.of("total_requests", "1", "concurrency", "2"));

      List<TokenEvent> done = onlyRequestOf(run.records(), "no-blank");
      assertEquals(List.of("start", "token", "token", "end"), types(done));
      TokenEvent end = done.get(3);
      assertEquals(EventType.END, end.type());
      assertEquals("stop", end.finishReason());
      assertNull(end.errorClass());

      // a last token chunk without its blank line counts as a token; no finish reason: truncated
      List<TokenEvent> cut = onlyRequestOf(run.records(), "token-cut");
      assertEquals(List.of("start", "token", "token", "error"), types(cut));
      assertEquals("truncated", cut.get(3).errorClass());
      assertEquals(2, cut.get(3).seq(), "both token chunks counted");

      run.result()
          .models()
          .forEach(
              m -> {
                boolean completes = m.model().equals("no-blank");
                assertEquals(completes ? 1 : 0, m.completed(), m.model());
                assertEquals(completes ? 0 : 1, m.failed(), m.model());
              });
    }
  }
}
