package io.tpotstream.producer.load;

import static io.tpotstream.producer.testing.ScriptedServer.openAiStream;
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
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Open loop: requests leave at their intended times; when the concurrency cap is reached a due
 * request waits and the wait shows in {@code scheduleLagNs}; none is skipped.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class OpenLoopTest {
  static final ScriptedServer server =
      new ScriptedServer()
          .on(
              "slow",
              Script.sse()
                  .write(openAiStream(1).substring(0, 10))
                  .pause(200)
                  .write(openAiStream(2).substring(10)))
          .on("fast", Script.sse().write(openAiStream(2)));

  @AfterAll
  static void stop() {
    server.close();
  }

  private static List<TokenEvent> starts(Runs.Finished run) {
    return run.records().stream()
        .map(r -> r.event())
        .filter(e -> e.type() == EventType.START)
        .sorted(
            Comparator.comparing(
                e -> Long.parseLong(e.requestId().substring(e.requestId().lastIndexOf('-') + 1))))
        .toList();
  }

  @Test
  void cappedOpenLoopQueuesDueRequestsAndShowsTheWaitAsLag(TestKafka kafka) {
    // 20 requests/s, each takes ~200 ms, one at a time: request k waits about k × 150 ms
    Map<String, String> keys = Map.of("rate", "20", "concurrency", "1", "total_requests", "8");
    Runs.Finished run = Runs.run(kafka, server.baseUrl(), "slow", keys);
    List<TokenEvent> starts = starts(run);
    assertEquals(8, starts.size(), "no due request is skipped");
    assertEquals(8, run.result().models().get(0).completed());
    assertEquals(Map.of("concurrency", "1"), starts.get(0).labels());
    for (TokenEvent s : starts) {
      assertTrue(s.scheduleLagNs() != null && s.scheduleLagNs() >= 0, s.toString());
    }
    // each request holds the only slot ≥ 200 ms while the next is due 50 ms later: the lag of
    // the last one exceeds the first's by at least 7 × 150 ms
    long waitedNs = starts.get(7).scheduleLagNs() - starts.get(0).scheduleLagNs();
    assertTrue(waitedNs > 7 * 150_000_000L, "the last one waited behind the others: " + waitedNs);
    assertEquals(8, run.result().models().get(0).scheduleLag().count());
  }

  @Test
  void poissonOpenLoopSendsEveryRequestAndClosedLoopHasNoLag(TestKafka kafka) {
    Map<String, String> keys =
        Map.of("rate", "50", "arrival", "poisson", "seed", "3", "total_requests", "10");
    Runs.Finished open = Runs.run(kafka, server.baseUrl(), "fast", keys);
    List<TokenEvent> starts = starts(open);
    assertEquals(10, starts.size());
    assertEquals("unbounded", starts.get(0).labels().get("concurrency"));
    starts.forEach(s -> assertTrue(s.scheduleLagNs() != null));

    Runs.Finished closed = Runs.run(kafka, server.baseUrl(), "fast", Map.of("total_requests", "3"));
    List<TokenEvent> closedStarts = starts(closed);
    assertEquals(3, closedStarts.size());
    closedStarts.forEach(s -> assertNull(s.scheduleLagNs()));
  }

  @Test
  void durationBoundsAClosedLoop(TestKafka kafka) {
    Runs.Finished run =
        Runs.run(kafka, server.baseUrl(), "slow", Map.of("concurrency", "2", "duration", "1s"));
    long requests = run.result().models().get(0).started();
    // two workers, ~200 ms per request, 1 s: about 10, never the default 200
    assertTrue(requests >= 2 && requests <= 14, "requests: " + requests);
    assertEquals(0, run.result().models().get(0).failed());
  }
}
