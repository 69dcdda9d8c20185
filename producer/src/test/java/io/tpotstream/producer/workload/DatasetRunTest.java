package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.EventType;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.ScriptedServer;
import io.tpotstream.producer.testing.ScriptedServer.Script;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A dataset's prompts reach a real HTTP server as written, conversations turn after turn. */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class DatasetRunTest {
  static final ScriptedServer server =
      new ScriptedServer().on("ds", Script.sse().write(ScriptedServer.openAiStream(3)));

  @TempDir Path dir;

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void promptsMaxTokensAndTurnsReachTheServerInOrder(TestKafka kafka) throws Exception {
    Path dataset = dir.resolve("d.jsonl");
    Files.write(
        dataset,
        List.of(
            "{\"conversations\": [{\"from\": \"human\", \"value\": \"Q1\"},"
                + " {\"from\": \"gpt\", \"value\": \"A1\"}, {\"from\": \"human\", \"value\": \"Q2\"},"
                + " {\"from\": \"gpt\", \"value\": \"A2\"}, {\"from\": \"human\", \"value\": \"Q3\"}],"
                + " \"max_tokens\": 9}",
            "{\"prompt\": \"single prompt\", \"max_tokens\": 7}",
            "{\"messages\": [{\"role\": \"system\", \"content\": \"S\"},"
                + " {\"role\": \"user\", \"content\": \"M\"}]}"));
    Runs.Finished run =
        Runs.run(
            kafka,
            server.baseUrl(),
            "ds",
            Map.of(
                "dataset", dataset.toString(),
                "concurrency", "1",
                "total_requests", "5",
                "max_tokens", "30"));
    List<JsonObject> bodies = server.received().stream().map(r -> r.body()).toList();
    assertEquals(5, bodies.size());
    List<String> sent = bodies.stream().map(b -> b.getJsonArray("messages").encode()).toList();
    // one worker: a conversation's turns back to back, each with the history so far, then the next
    assertEquals(
        List.of(
            "[{\"role\":\"user\",\"content\":\"Q1\"}]",
            "[{\"role\":\"user\",\"content\":\"Q1\"},{\"role\":\"assistant\",\"content\":\"A1\"},"
                + "{\"role\":\"user\",\"content\":\"Q2\"}]",
            "[{\"role\":\"user\",\"content\":\"Q1\"},{\"role\":\"assistant\",\"content\":\"A1\"},"
                + "{\"role\":\"user\",\"content\":\"Q2\"},{\"role\":\"assistant\",\"content\":\"A2\"},"
                + "{\"role\":\"user\",\"content\":\"Q3\"}]",
            "[{\"role\":\"user\",\"content\":\"single prompt\"}]",
            "[{\"role\":\"system\",\"content\":\"S\"},{\"role\":\"user\",\"content\":\"M\"}]"),
        sent);
    int t3 = 2;
    assertEquals(9, bodies.get(t3).getInteger("max_tokens"));
    JsonObject single =
        bodies.stream()
            .filter(b -> b.getJsonArray("messages").encode().contains("single prompt"))
            .findFirst()
            .orElseThrow();
    assertEquals(7, single.getInteger("max_tokens"));
    JsonObject messages =
        bodies.stream()
            .filter(b -> b.getJsonArray("messages").size() == 2)
            .findFirst()
            .orElseThrow();
    assertEquals(30, messages.getInteger("max_tokens"), "no max_tokens in the entry: the config's");
    assertEquals(
        5,
        run.records().stream()
            .filter(r -> r.event().type() == EventType.START)
            .filter(r -> "0-127".equals(r.event().labels().get(InputLength.LABEL)))
            .count());
  }
}
