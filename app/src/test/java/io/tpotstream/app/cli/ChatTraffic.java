package io.tpotstream.app.cli;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.proxy.ProxyConfig;
import io.tpotstream.proxy.TpotProxy;
import io.tpotstream.testkit.TestKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import picocli.CommandLine.ParseResult;

/**
 * Streaming chat requests as a client sends them (OpenAI's and Anthropic's bodies, over the JDK's
 * HTTP client), and the usage the server reported in the stream: the traffic of the tests that
 * capture a trace through the proxy.
 */
final class ChatTraffic {
  private ChatTraffic() {}

  /** {@code n} characters of words found nowhere else ({@code zq} and six digits). */
  static String words(int n, int seed) {
    StringBuilder s = new StringBuilder();
    Random random = new Random(seed);
    while (s.length() < n) {
      s.append("zq").append(100_000 + random.nextInt(900_000)).append(' ');
    }
    return s.substring(0, n);
  }

  /** An OpenAI chat body to model {@code quick}, 6 output tokens at most. */
  static String openAi(String... roleAndContent) throws Exception {
    return openAi(6, roleAndContent);
  }

  /** An OpenAI chat body to model {@code quick}, {@code maxTokens} output tokens at most. */
  static String openAi(int maxTokens, String... roleAndContent) throws Exception {
    return "{\"model\":\"quick\",\"stream\":true,\"max_tokens\":"
        + maxTokens
        + ",\"stream_options\":{\"include_usage\":true},\"messages\":"
        + messages(roleAndContent)
        + "}";
  }

  /** An Anthropic messages body to model {@code quick}, without a system prompt. */
  static String anthropic(int maxTokens, String... roleAndContent) throws Exception {
    return "{\"max_tokens\":"
        + maxTokens
        + ",\"messages\":"
        + messages(roleAndContent)
        + ",\"model\":\"quick\",\"stream\":true}";
  }

  private static String messages(String... roleAndContent) throws Exception {
    List<Map<String, String>> messages = new ArrayList<>();
    for (int i = 0; i < roleAndContent.length; i += 2) {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("role", roleAndContent[i]);
      m.put("content", roleAndContent[i + 1]);
      messages.add(m);
    }
    return Json.MAPPER.writeValueAsString(messages);
  }

  /**
   * The prompt, completion and cached prompt tokens the server reported to the client in its stream
   * (cached -1 when it reported none).
   */
  record Usage(int prompt, int completion, int cached) {}

  /**
   * {@code tpot proxy --capture-prefix-hashes} as a user starts it, keyed by {@code keyFile}, in
   * front of {@code upstream}, publishing to {@code topic}; returned once it is connected to Kafka.
   */
  static TpotProxy capturingProxy(TestKafka kafka, String topic, String upstream, Path keyFile) {
    ParseResult parsed =
        Tpot.commandLine()
            .parseArgs(
                "proxy",
                "--listen",
                "0",
                "--upstream",
                upstream,
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
            config, KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(2));
    await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
    return proxy;
  }

  static Usage send(HttpClient http, String url, String body) throws Exception {
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
    int cached = -1;
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
      JsonNode details = usage.path("prompt_tokens_details");
      cached = details.has("cached_tokens") ? details.get("cached_tokens").asInt() : cached;
      cached =
          usage.has("cache_read_input_tokens")
              ? usage.get("cache_read_input_tokens").asInt()
              : cached;
      completion =
          usage.has("completion_tokens") ? usage.get("completion_tokens").asInt() : completion;
      completion = usage.has("output_tokens") ? usage.get("output_tokens").asInt() : completion;
    }
    return new Usage(prompt, completion, cached);
  }
}
