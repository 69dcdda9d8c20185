package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.proxy.ProxyConfig;
import io.tpotstream.proxy.TpotProxy;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.ParseResult;

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

  /** {@code n} characters of words found nowhere else ({@code zq} and six digits). */
  private static String words(int n, int seed) {
    StringBuilder s = new StringBuilder();
    Random random = new Random(seed);
    while (s.length() < n) {
      s.append("zq").append(100_000 + random.nextInt(900_000)).append(' ');
    }
    return s.substring(0, n);
  }

  // each message exactly one 2,048-byte block of the canonical text (text, 0x1F, role, 0x1E)
  private static final String SYSTEM = words(2_048 - 8, 1);
  private static final String SYSTEM_2 = words(2_048 - 8, 2);
  private static final String USER_1 = words(2_048 - 6, 3);
  private static final String ANSWER = words(2_048 - 11, 4);
  private static final String USER_2 = words(2_048 - 6, 5);
  private static final String USER_3 = words(2_048 - 6, 6);

  private static String openAi(String... roleAndContent) throws Exception {
    List<Map<String, String>> messages = new ArrayList<>();
    for (int i = 0; i < roleAndContent.length; i += 2) {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("role", roleAndContent[i]);
      m.put("content", roleAndContent[i + 1]);
      messages.add(m);
    }
    return "{\"model\":\"quick\",\"stream\":true,\"max_tokens\":6,"
        + "\"stream_options\":{\"include_usage\":true},\"messages\":"
        + Json.MAPPER.writeValueAsString(messages)
        + "}";
  }

  /** The prompt and completion tokens the server reported to the client in its stream. */
  private record Usage(int prompt, int completion) {}

  private static Usage send(HttpClient http, String url, String body) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer sk-any")
                .header("x-api-key", "sk-any")
                .header("anthropic-version", "2023-06-01")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    int prompt = -1;
    int completion = -1;
    for (String line : response.body().split("\n")) {
      if (!line.startsWith("data: {")) {
        continue;
      }
      JsonNode data = Json.MAPPER.readTree(line.substring(6));
      JsonNode usage = data.has("message") ? data.get("message").path("usage") : data.path("usage");
      prompt = usage.has("prompt_tokens") ? usage.get("prompt_tokens").asInt() : prompt;
      // Anthropic's input_tokens counts only what its cache did not hold: the prompt is all three
      prompt =
          usage.has("input_tokens")
              ? usage.get("input_tokens").asInt()
                  + usage.path("cache_read_input_tokens").asInt(0)
                  + usage.path("cache_creation_input_tokens").asInt(0)
              : prompt;
      completion =
          usage.has("completion_tokens") ? usage.get("completion_tokens").asInt() : completion;
      completion = usage.has("output_tokens") ? usage.get("output_tokens").asInt() : completion;
    }
    return new Usage(prompt, completion);
  }

  @Test
  void aCapturedTraceHasTheRequestsTheirLengthsAndTheirSharingAndNoWord(TestKafka kafka)
      throws Exception {
    Path keyFile =
        Files.write(dir.resolve("prefix.key"), "thirty-two bytes of a test key!!".getBytes());
    String topic = TestKafka.uniqueName("trace-proxy");
    List<Usage> usages = new ArrayList<>();
    try (Simulator simulator =
        Simulator.start(SimulatorConfig.inProcess(List.of("quick"), 0.2, 0.2).withSeed(5L))) {
      ParseResult parsed =
          Tpot.commandLine()
              .parseArgs(
                  "proxy",
                  "--listen",
                  "0",
                  "--upstream",
                  simulator.baseUrl(),
                  "--capture-prefix-hashes",
                  "--prefix-hash-key-file",
                  keyFile.toString(),
                  "--prime",
                  "0",
                  "--metrics-port",
                  "-1",
                  "--event-loops",
                  "1");
      ProxyConfig config = ((ProxyCommand) parsed.subcommand().commandSpec().userObject()).config();
      TpotProxy proxy =
          TpotProxy.start(
              config,
              KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(2));
      try {
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
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
