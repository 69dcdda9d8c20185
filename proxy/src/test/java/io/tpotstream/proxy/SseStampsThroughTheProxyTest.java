package io.tpotstream.proxy;

import static io.tpotstream.producer.testing.ScriptedServer.FINISH;
import static io.tpotstream.producer.testing.ScriptedServer.ROLE;
import static io.tpotstream.producer.testing.ScriptedServer.content;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The proxy stamps events as the producer does, as a plain client reading lines sees them: a token
 * at the read of its {@code data:} line, even when the upstream sends each event's blank line with
 * the next event, and a last event that the end of the response cut off before its blank line is
 * taken.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class SseStampsThroughTheProxyTest {
  private static final long AB_MS = 300;
  private static final long BC_MS = 700;

  @Test
  void tokensAreStampedByTheirDataLinesAndAFinalChunkWithoutItsBlankLineCompletes(TestKafka kafka) {
    // every write is one event's data line plus the blank line of the event before it; the
    // finish chunk's blank line never comes, nor [DONE]
    Script late =
        Script.sse()
            .write("data: " + ROLE + "\n")
            .write("\ndata: " + content("a") + "\n")
            .pause(AB_MS)
            .write("\ndata: " + content("b") + "\n")
            .pause(BC_MS)
            .write("\ndata: " + content("c") + "\n")
            .pause(100)
            .write("\ndata: " + FINISH + "\n");
    String topic = TestKafka.uniqueName("proxy-stamps");
    try (ScriptedServer server = new ScriptedServer().on("late-blank", late)) {
      TpotProxy proxy =
          TpotProxy.start(
              ProxyConfig.of(0, Upstream.parse(server.baseUrl()))
                  .withMetricsPort(-1)
                  .withEventLoops(1),
              KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(1));
      RawHttp.Response response;
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
        response =
            RawHttp.exchange(
                proxy.port(),
                RawHttp.post("/v1/chat/completions", "{\"model\":\"late-blank\",\"stream\":true}"));
      } finally {
        proxy.close();
      }
      assertTrue(response.text().endsWith("data: " + FINISH + "\n"), "forwarded unchanged");
      List<TokenEvent> events =
          TopicReader.byRequest(TopicReader.readUntilFinal(kafka, topic, proxy.producerId()))
              .values()
              .iterator()
              .next();
      assertEquals(
          List.of("start", "token", "token", "token", "end"),
          events.stream().map(e -> e.type().wire()).toList());
      long abMs = (events.get(2).elapsedNs() - events.get(1).elapsedNs()) / 1_000_000;
      long bcMs = (events.get(3).elapsedNs() - events.get(2).elapsedNs()) / 1_000_000;
      // stamped by their blank lines, a→b would be 700 ms and b→c 100 ms: the bounds lie halfway
      // between, with room for a token stamped late on a busy machine (a cold first request)
      assertTrue(abMs >= AB_MS - 150 && abMs < 500, "a→b " + abMs + " ms");
      assertTrue(bcMs >= 400 && bcMs < BC_MS + 300, "b→c " + bcMs + " ms");
      assertNull(events.get(4).errorClass());
      assertEquals("stop", events.get(4).finishReason());
    }
  }
}
