package io.tpotstream.proxy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Json;
import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.producer.publish.KafkaSettings;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.proxy.http.Upstream;
import io.tpotstream.proxy.prefix.PrefixHashKey;
import io.tpotstream.proxy.prefix.PromptBlocks;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.TestSimulators;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.LogCapture;
import io.tpotstream.testkit.TestKafka;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --capture-prefix-hashes} through the real proxy, simulator and broker: the start events
 * carry equal leading hashes exactly where the prompts share whole blocks, a proxy started again
 * with the same key file gives the same hashes, one without capture gives none, and no word of any
 * prompt reaches any topic or log line.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class PrefixHashesThroughTheProxyTest {
  private static final String KEY = "sk-prefix-hashes-test-0123456789";

  private static Simulator simulator;

  @TempDir Path dir;

  @BeforeAll
  static void start() {
    simulator = Simulator.start(TestSimulators.proxyUpstream(11L, KEY));
  }

  @AfterAll
  static void stop() {
    simulator.close();
  }

  /** {@code n} characters of words found nowhere else ({@code zq} and six digits). */
  private static String words(int n, int seed) {
    StringBuilder s = new StringBuilder();
    Random random = new Random(seed);
    while (s.length() < n) {
      s.append("zq").append(100_000 + random.nextInt(900_000)).append(' ');
    }
    return s.substring(0, n);
  }

  // each message exactly one block of the canonical text: its text, 0x1F, its role, 0x1E
  private static final String SYSTEM = words(PromptBlocks.BLOCK_BYTES - 8, 1);
  private static final String USER_1 = words(PromptBlocks.BLOCK_BYTES - 6, 2);
  private static final String ANSWER = words(PromptBlocks.BLOCK_BYTES - 11, 3);
  private static final String USER_2 = words(PromptBlocks.BLOCK_BYTES - 6, 4);
  private static final String USER_3 = words(PromptBlocks.BLOCK_BYTES - 6, 5);

  private static String openAi(String... roleAndContent) throws Exception {
    List<Map<String, String>> messages = new ArrayList<>();
    for (int i = 0; i < roleAndContent.length; i += 2) {
      Map<String, String> m = new LinkedHashMap<>();
      m.put("role", roleAndContent[i]);
      m.put("content", roleAndContent[i + 1]);
      messages.add(m);
    }
    return "{\"model\":\"quick\",\"stream\":true,\"max_tokens\":5,\"messages\":"
        + Json.MAPPER.writeValueAsString(messages)
        + "}";
  }

  /** The requests sent, by the request id they carry. */
  private static Map<String, String> requests() throws Exception {
    Map<String, String> bodies = new LinkedHashMap<>();
    bodies.put("turn-1", openAi("system", SYSTEM, "user", USER_1));
    bodies.put(
        "turn-2", openAi("system", SYSTEM, "user", USER_1, "assistant", ANSWER, "user", USER_2));
    bodies.put("other", openAi("system", SYSTEM, "user", USER_3));
    return bodies;
  }

  /** Sends every request through a proxy with {@code key} (null: no capture); its start events. */
  private static Map<String, TokenEvent> startsThroughAProxy(
      TestKafka kafka, PrefixHashKey key, List<String> texts) throws Exception {
    String topic = TestKafka.uniqueName("prefix-hashes");
    TpotProxy proxy =
        TpotProxy.start(
            ProxyConfig.of(0, Upstream.parse(simulator.baseUrl()))
                .withMetricsPort(-1)
                .withEventLoops(1)
                .withRequestIdHeader("X-Trace-Id")
                .withPrefixHashKey(key),
            KafkaSettings.of(kafka.bootstrapServers()).withTopic(topic).withPartitions(1));
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> proxy.events().connected());
      for (Map.Entry<String, String> r : requests().entrySet()) {
        RawHttp.Response response =
            RawHttp.exchange(
                proxy.port(),
                RawHttp.post(
                    "/v1/chat/completions",
                    r.getValue(),
                    "Authorization: Bearer " + KEY,
                    "X-Trace-Id: " + r.getKey()));
        assertEquals(200, response.status());
      }
      // Anthropic: the system after the messages, as an SDK writes it
      RawHttp.Response messages =
          RawHttp.exchange(
              proxy.port(),
              RawHttp.post(
                  "/v1/messages",
                  "{\"max_tokens\":5,\"messages\":[{\"role\":\"user\",\"content\":"
                      + Json.MAPPER.writeValueAsString(USER_1)
                      + "}],\"model\":\"quick\",\"stream\":true,\"system\":"
                      + Json.MAPPER.writeValueAsString(SYSTEM)
                      + "}",
                  "x-api-key: " + KEY,
                  "anthropic-version: 2023-06-01",
                  "X-Trace-Id: anthropic"));
      assertEquals(200, messages.status());
    } finally {
      proxy.close();
    }
    List<TopicReader.Rec> records = TopicReader.readUntilFinal(kafka, topic, proxy.producerId());
    Map<String, TokenEvent> starts = new LinkedHashMap<>();
    for (TopicReader.Rec r : records) {
      texts.add(r.raw());
      if (r.event().type() == EventType.START) {
        starts.put(r.event().requestId(), r.event());
      }
    }
    return starts;
  }

  @Test
  void startEventsShareLeadingHashesExactlyWhereThePromptsShareBlocksAndCarryNoWord(TestKafka kafka)
      throws Exception {
    String keyText = "a key file of 24 bytes..";
    Path keyFile = Files.write(dir.resolve("prefix.key"), keyText.getBytes());
    List<String> texts = new ArrayList<>();
    try (LogCapture logs = LogCapture.begin()) {
      Map<String, TokenEvent> first =
          startsThroughAProxy(kafka, PrefixHashKey.fromFile(keyFile), texts);
      Map<String, TokenEvent> again =
          startsThroughAProxy(kafka, PrefixHashKey.fromFile(keyFile), texts);
      Map<String, TokenEvent> random = startsThroughAProxy(kafka, PrefixHashKey.random(), texts);
      Map<String, TokenEvent> off = startsThroughAProxy(kafka, null, texts);
      texts.addAll(logs.lines());

      List<Long> turn1 = first.get("turn-1").prefixHashes();
      List<Long> turn2 = first.get("turn-2").prefixHashes();
      List<Long> other = first.get("other").prefixHashes();
      assertEquals(2, turn1.size());
      assertEquals(2, first.get("turn-1").prefixBlocks());
      assertEquals(4, turn2.size());
      assertEquals(4, first.get("turn-2").prefixBlocks());
      assertEquals(turn1, turn2.subList(0, 2), "the second turn shares the first's two blocks");
      assertEquals(turn1.get(0), other.get(0), "the same system message");
      assertNotEquals(turn1.get(1), other.get(1), "another user message");
      assertEquals(4, new HashSet<>(turn2).size());
      // Anthropic's system is hashed as its own part (its blocks end with it): other ids
      List<Long> anthropic = first.get("anthropic").prefixHashes();
      assertEquals(2, anthropic.size(), "the system's 2,041 bytes, then the message's 2,048");
      assertEquals(Set.of(), intersection(anthropic, turn2));

      // the same key file after a restart: the same ids; a random key: none of them
      for (String id : first.keySet()) {
        assertEquals(first.get(id).prefixHashes(), again.get(id).prefixHashes(), id);
        assertEquals(
            Set.of(), intersection(first.get(id).prefixHashes(), random.get(id).prefixHashes()));
        assertNull(off.get(id).prefixHashes(), "not captured: " + id);
        assertNull(off.get(id).prefixBlocks(), "not captured: " + id);
      }
      assertEquals(4, off.size());
    }

    // no word of any prompt in any record of any topic, nor in the logs; the search finds words
    texts.addAll(EventsTopic.everyRecordOfEveryTopic(kafka));
    Set<String> found = new HashSet<>();
    for (String text : texts) {
      found.addAll(Arrays.asList(text.split("[^A-Za-z0-9]+")));
    }
    assertTrue(found.contains("prefixHashes") && found.contains("quick"), "the search works");
    for (String text : texts) {
      assertFalse(text.contains(keyText) || text.contains("24 bytes"), "the key: " + text);
    }
    for (String prompt : List.of(SYSTEM, USER_1, ANSWER, USER_2, USER_3)) {
      for (String word : prompt.split(" ")) {
        if (word.length() == 8) {
          assertFalse(found.contains(word), word);
        }
      }
    }
  }

  private static Set<Long> intersection(List<Long> a, List<Long> b) {
    Set<Long> common = new HashSet<>(a);
    common.retainAll(new HashSet<>(b));
    return common;
  }
}
