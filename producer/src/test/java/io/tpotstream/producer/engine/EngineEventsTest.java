package io.tpotstream.producer.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.engine.EngineTiming;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.testing.ExpositionServer;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.producer.testing.VllmBodies;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real producer run against the simulator, scraping a real metrics endpoint every second: {@code
 * engine} events reach the topic, one per scrape, for the run's model (the engine calls it
 * otherwise), between the start heartbeats and the final ones, their deltas adding up to what the
 * endpoint's counts grew by from the first scrape to the last; no request is sent before the
 * baseline scrape has its answer.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class EngineEventsTest {
  @Test
  void aRunPublishesOneEngineEventPerScrapeForItsModel(TestKafka kafka) throws Exception {
    String last =
        "{\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2},\"metrics\":"
            + "{\"time_to_first_token_ms\":85.2,\"generation_time_ms\":1240.5,"
            + "\"queue_time_ms\":-12.3,\"mean_itl_ms\":9.1,\"tokens_per_second\":103.2}}";
    try (ExpositionServer engine = new ExpositionServer();
        ScriptedServer server = new ScriptedServer()) {
      server.on(
          "model-a",
          ScriptedServer.Script.sse()
              .write("data: " + ScriptedServer.content("a") + "\n\n")
              .pause(100)
              .write("data: " + ScriptedServer.content("b") + "\n\n")
              .write(
                  "data: " + ScriptedServer.FINISH + "\n\ndata: " + last + "\n\ndata: [DONE]\n\n"));
      // the baseline answers slowly: the run's requests wait for it, so none is in it
      List<Integer> requestsAtBaseline = new CopyOnWriteArrayList<>();
      engine.metrics(
          n -> {
            if (n == 1) {
              LockSupport.parkNanos(300_000_000L);
              requestsAtBaseline.add(server.received().size());
            }
            return VllmBodies.of("/models/llama-7b", n).text();
          });
      Runs.Finished run =
          Runs.run(
              kafka,
              server.baseUrl(),
              "model-a",
              Map.of(
                  "engine_metrics", engine.url("/metrics"),
                  "engine_metrics_interval", "1s",
                  "duration", "2500ms",
                  "concurrency", "2",
                  "max_tokens", "20"));

      assertEquals(List.of(0), requestsAtBaseline);
      List<TopicReader.Rec> records =
          run.records().stream().filter(r -> r.event().type() == EventType.ENGINE).toList();
      EngineScrapes scrapes = run.result().engine();
      assertEquals(scrapes.scrapes(), records.size());
      assertTrue(records.size() >= 3, "a baseline, a scrape each second, the last: " + records);
      assertEquals(0, scrapes.failed());
      long tpotCounts = 0;
      for (int i = 0; i < records.size(); i++) {
        TokenEvent e = records.get(i).event();
        assertEquals("model-a", e.model());
        assertEquals(Map.of("concurrency", "2"), e.labels());
        assertEquals(run.result().producerId(), e.producerId());
        assertEquals(run.result().producerId(), records.get(i).key());
        assertEquals(i == 0 ? 0 : 1, Long.signum(e.engine().intervalMs()));
        if (i > 0 && i < records.size() - 1) {
          long inSecond = e.ts() % 1000;
          assertTrue(inSecond >= 750, "scraped 250 ms before a whole second: " + e.ts());
        }
        tpotCounts += e.engine().tpot() == null ? 0 : e.engine().tpot().total();
      }
      assertEquals((records.size() - 1) * 127L, tpotCounts); // each scrape's body grew by 127
      // all on one partition, before its final heartbeat
      int partition = records.get(0).partition();
      long lastEngine = records.get(records.size() - 1).offset();
      long finalHeartbeat =
          run.records().stream()
              .filter(r -> r.partition() == partition && r.event().finalHeartbeat())
              .mapToLong(TopicReader.Rec::offset)
              .min()
              .orElseThrow();
      assertTrue(records.stream().allMatch(r -> r.partition() == partition));
      assertTrue(lastEngine < finalHeartbeat);

      List<TokenEvent> ends =
          run.records().stream()
              .map(TopicReader.Rec::event)
              .filter(e -> e.type() == EventType.END)
              .toList();
      assertTrue(ends.size() >= 2, "requests: " + ends.size());
      for (TokenEvent end : ends) {
        assertEquals(new EngineTiming(null, 85_200L, 9_100L, 1_240_500L), end.engineTiming());
        assertEquals(1, end.malformedChunks());
      }
    }
  }
}
