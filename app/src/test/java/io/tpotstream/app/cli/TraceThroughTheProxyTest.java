package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.ChatTraffic.openAi;
import static io.tpotstream.app.cli.ChatTraffic.send;
import static io.tpotstream.app.cli.ChatTraffic.words;
import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.proxy.TpotProxy;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Traffic through {@code tpot proxy --capture-prefix-hashes} to the real simulator, then {@code
 * tpot trace} from the topic: one line per request in the order they were sent, the lengths the
 * server reported to the client, hash ids equal exactly where the prompts shared whole blocks
 * (across conversations and APIs), and no word of any prompt in the trace.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class TraceThroughTheProxyTest {
  @TempDir Path dir;

  // each message exactly one 2,048-byte block of the canonical text (text, 0x1F, role, 0x1E)
  private static final String SYSTEM = words(2_048 - 8, 1);
  private static final String SYSTEM_2 = words(2_048 - 8, 2);
  private static final String USER_1 = words(2_048 - 6, 3);
  private static final String ANSWER = words(2_048 - 11, 4);
  private static final String USER_2 = words(2_048 - 6, 5);
  private static final String USER_3 = words(2_048 - 6, 6);

  @Test
  void aCapturedTraceHasTheRequestsTheirLengthsAndTheirSharingAndNoWord(TestKafka kafka)
      throws Exception {
    Path keyFile =
        Files.write(dir.resolve("prefix.key"), "thirty-two bytes of a test key!!".getBytes());
    String topic = TestKafka.uniqueName("trace-proxy");
    List<ChatTraffic.Usage> usages = new ArrayList<>();
    try (Simulator simulator =
        Simulator.start(SimulatorConfig.inProcess(List.of("quick"), 0.2, 0.2).withSeed(5L))) {
      TpotProxy proxy = ChatTraffic.capturingProxy(kafka, topic, simulator.baseUrl(), keyFile);
      try {
        HttpClient http = HttpClient.newHttpClient();
        String chat = proxy.baseUrl() + "/v1/chat/completions";
        // a conversation of two turns, another sharing its system message, one with another
        // system, and the first turn's prompt through Anthropic's API (system after the messages)
        usages.add(send(http, chat, openAi("system", SYSTEM, "user", USER_1)));
        usages.add(
            send(
                http,
                chat,
                openAi("system", SYSTEM, "user", USER_1, "assistant", ANSWER, "user", USER_2)));
        usages.add(send(http, chat, openAi("system", SYSTEM, "user", USER_3)));
        usages.add(send(http, chat, openAi("system", SYSTEM_2, "user", USER_1)));
        usages.add(
            send(
                http,
                proxy.baseUrl() + "/v1/messages",
                "{\"max_tokens\":6,\"messages\":[{\"role\":\"user\",\"content\":"
                    + Json.MAPPER.writeValueAsString(USER_1)
                    + "}],\"model\":\"quick\",\"stream\":true,\"system\":"
                    + Json.MAPPER.writeValueAsString(SYSTEM)
                    + "}"));
      } finally {
        proxy.close();
      }
    }

    Path trace = dir.resolve("trace.jsonl");
    TpotCli.Result result =
        tpot(
            "trace",
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            topic,
            "--out",
            trace.toString());
    assertEquals(0, result.exit(), result.err());
    assertTrue(
        result.err().contains("tpot trace: 5 requests to " + trace + " (5 completed, 0 failed"),
        result.err());
    List<String> lines = Files.readAllLines(trace);
    assertEquals(5, lines.size());
    List<List<Long>> expectedIds =
        List.of(
            List.of(0L, 1L),
            List.of(0L, 1L, 2L, 3L),
            List.of(0L, 4L),
            List.of(5L, 6L),
            List.of(7L, 8L));
    List<String> routes =
        List.of(
            "/v1/chat/completions",
            "/v1/chat/completions",
            "/v1/chat/completions",
            "/v1/chat/completions",
            "/v1/messages");
    long previous = 0;
    for (int i = 0; i < 5; i++) {
      JsonNode line = Json.MAPPER.readTree(lines.get(i));
      String on = "line " + (i + 1) + ": " + lines.get(i);
      assertTrue(usages.get(i).prompt() > 1_000 && usages.get(i).completion() > 0, on);
      assertEquals(usages.get(i).prompt(), line.get("input_length").asInt(), on);
      assertEquals(usages.get(i).completion(), line.get("output_length").asInt(), on);
      List<Long> ids = new ArrayList<>();
      line.get("hash_ids").forEach(id -> ids.add(id.asLong()));
      assertEquals(expectedIds.get(i), ids, on);
      assertEquals(512, line.get("block_size").asInt());
      assertEquals("quick", line.get("model").asText());
      assertEquals(routes.get(i), line.get("labels").get("route").asText(), on);
      long timestamp = line.get("timestamp").asLong();
      assertTrue(i == 0 ? timestamp == 0 : timestamp >= previous, on);
      previous = timestamp;
    }

    // not a word of any prompt: the trace's words are its field names, numbers and labels
    String text = Files.readString(trace, StandardCharsets.UTF_8);
    Set<String> found = new HashSet<>(Arrays.asList(text.split("[^A-Za-z0-9]+")));
    assertTrue(found.contains("quick") && found.contains("hash"), text);
    for (String prompt : List.of(SYSTEM, SYSTEM_2, USER_1, ANSWER, USER_2, USER_3)) {
      for (String word : prompt.split(" ")) {
        assertFalse(word.length() == 8 && found.contains(word), word);
      }
    }
  }
}
