package io.tpotstream.app.cli;

import static io.tpotstream.app.cli.ChatTraffic.anthropic;
import static io.tpotstream.app.cli.ChatTraffic.openAi;
import static io.tpotstream.app.cli.ChatTraffic.send;
import static io.tpotstream.app.cli.ChatTraffic.words;
import static io.tpotstream.app.cli.TpotCli.tpot;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.producer.workload.TraceRequest;
import io.tpotstream.proxy.TpotProxy;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.truth.ModelTruth;
import io.tpotstream.simulator.truth.RequestTruth;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 52's round trip on the real broker, proxy and simulator: traffic through {@code tpot proxy
 * --capture-prefix-hashes}, {@code tpot trace} of it, {@code tpot produce --trace} of that trace
 * against a fresh simulator gives the same requests, lengths, offsets (to the replay's own schedule
 * lag) and prefix sharing (the simulator's cached tokens, request by request); and a Mooncake trace
 * replayed gives, request by request and in sum, the cached tokens its {@code hash_ids} imply.
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class TraceRoundTripTest {
  /** The simulator's prefix cache block, in tokens (its profiles' default). */
  private static final int CACHE_BLOCK_TOKENS = 16;

  @TempDir Path dir;

  /** One request of the original traffic: its route, body and the output it asks for. */
  private record Sent(String route, String body, int maxTokens) {}

  private static Sent chat(int maxTokens, String... roleAndContent) throws Exception {
    return new Sent("/v1/chat/completions", openAi(maxTokens, roleAndContent), maxTokens);
  }

  /**
   * A few dozen requests in five families, interleaved at random but each family in its order:
   * conversations of three turns (a turn's prompt is the one before it and more; two first turns
   * sent twice), prompts sharing a long system message and nothing after it, prompts that share
   * nothing, and a conversation through Anthropic's API. Shared text ends where the proxy's
   * 2,048-byte blocks end (a message's text, 0x1F, its role and 0x1E) or a few characters past one,
   * so the trace's blocks of 512 tokens fall where the simulator's 16-token blocks see the same
   * sharing: the original's cached tokens are the replay's.
   */
  private static List<Sent> traffic() throws Exception {
    Random random = new Random(52);
    List<Deque<Sent>> families = new ArrayList<>();
    for (int c = 0; c < 4; c++) {
      String system = words(2_048 - 8, 100 + c);
      String user1 = words(2_048 - 6, 110 + c);
      String answer1 = words(2_048 - 11, 120 + c);
      String user2 = words(2_048 - 6, 130 + c);
      String answer2 = words(2_048 - 11, 140 + c);
      String user3 = words(300 + 700 * c, 150 + c);
      Deque<Sent> conversation = new ArrayDeque<>();
      conversation.add(chat(1 + random.nextInt(24), "system", system, "user", user1));
      if (c < 2) {
        conversation.add(chat(1 + random.nextInt(24), "system", system, "user", user1));
      }
      conversation.add(
          chat(
              1 + random.nextInt(24),
              "system",
              system,
              "user",
              user1,
              "assistant",
              answer1,
              "user",
              user2));
      conversation.add(
          chat(
              1 + random.nextInt(24),
              "system",
              system,
              "user",
              user1,
              "assistant",
              answer1,
              "user",
              user2,
              "assistant",
              answer2,
              "user",
              user3));
      families.add(conversation);
    }
    // two whole blocks of system text and 8 characters of a third, then each its own question
    String longSystem = words(2 * 2_048 + 8, 200);
    Deque<Sent> sameSystem = new ArrayDeque<>();
    for (int length : new int[] {150, 900, 2_500, 40, 5_000, 1_234}) {
      sameSystem.add(
          chat(1 + random.nextInt(24), "system", longSystem, "user", words(length, 210 + length)));
    }
    families.add(sameSystem);
    Deque<Sent> alone = new ArrayDeque<>();
    for (int length : new int[] {300, 2_048 - 6, 3_000, 7_000, 90}) {
      alone.add(chat(1 + random.nextInt(24), "user", words(length, 300 + length)));
    }
    families.add(alone);
    String first = words(2_048 - 6, 400);
    Deque<Sent> anthropic = new ArrayDeque<>();
    anthropic.add(new Sent("/v1/messages", anthropic(5, "user", first), 5));
    anthropic.add(
        new Sent(
            "/v1/messages",
            anthropic(
                9, "user", first, "assistant", words(2_048 - 11, 401), "user", words(500, 402)),
            9));
    families.add(anthropic);

    List<Sent> traffic = new ArrayList<>();
    while (!families.isEmpty()) {
      Deque<Sent> family = families.get(random.nextInt(families.size()));
      traffic.add(family.poll());
      if (family.isEmpty()) {
        families.remove(family);
      }
    }
    return traffic;
  }

  /**
   * Sends {@code traffic} one request after the other through a capturing proxy to {@code topic}.
   */
  private List<ChatTraffic.Usage> throughTheProxy(TestKafka kafka, String topic, List<Sent> traffic)
      throws Exception {
    Path keyFile =
        Files.write(dir.resolve("prefix.key"), "thirty-two bytes of a test key!!".getBytes());
    List<ChatTraffic.Usage> usages = new ArrayList<>();
    try (Simulator simulator =
        Simulator.start(SimulatorConfig.inProcess(List.of("quick"), 0.2, 0.2).withSeed(5L))) {
      TpotProxy proxy = ChatTraffic.capturingProxy(kafka, topic, simulator.baseUrl(), keyFile);
      try {
        HttpClient http = HttpClient.newHttpClient();
        for (Sent sent : traffic) {
          usages.add(send(http, proxy.baseUrl() + sent.route(), sent.body()));
        }
      } finally {
        proxy.close();
      }
    }
    return usages;
  }

  /** A replay's request records, by the request's number in the replay (its id's suffix). */
  private static Map<Integer, JsonNode> byNumber(Path requestsOut) throws Exception {
    Map<Integer, JsonNode> records = new HashMap<>();
    for (String line : Files.readAllLines(requestsOut)) {
      JsonNode record = Json.MAPPER.readTree(line);
      String id = record.get("requestId").asText();
      records.put(Integer.parseInt(id.substring(id.lastIndexOf('-') + 1)), record);
    }
    return records;
  }

  /** The numbers of a replay's requests in the order they arrived at {@code simulator}. */
  private static List<Integer> arrivalOrder(Simulator simulator, Map<Integer, JsonNode> records) {
    Map<String, Integer> numbers = new HashMap<>();
    records.forEach((n, record) -> numbers.put(record.get("requestId").asText(), n));
    return simulator.truth().requests().stream()
        .filter(t -> numbers.containsKey(t.requestId()))
        .sorted(Comparator.comparingLong(RequestTruth::arrivalNs))
        .map(t -> numbers.get(t.requestId()))
        .toList();
  }

  /** {@code tpot produce --trace} of {@code trace} against {@code simulator}, no warm-up. */
  private static Path replay(TestKafka kafka, Simulator simulator, Path trace, Path requestsOut) {
    TpotCli.Result replay =
        tpot(
            "produce",
            "--base-url",
            simulator.baseUrl(),
            "--models",
            "quick",
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            TestKafka.uniqueName("replay"),
            "--warmup",
            "0",
            "--progress-interval",
            "0",
            "--trace",
            trace.toString(),
            "--requests-out",
            requestsOut.toString());
    assertEquals(0, replay.exit(), replay.out() + replay.err());
    return requestsOut;
  }

  @Test
  void aTraceCapturedThroughTheProxyReplaysWithItsRequestsLengthsOffsetsAndSharing(TestKafka kafka)
      throws Exception {
    List<Sent> traffic = traffic();
    String topic = TestKafka.uniqueName("round-trip");
    List<ChatTraffic.Usage> original = throughTheProxy(kafka, topic, traffic);
    int requests = traffic.size();
    assertEquals(27, requests);

    Path trace = dir.resolve("captured.jsonl");
    TpotCli.Result traced =
        tpot(
            "trace",
            "--bootstrap-servers",
            kafka.bootstrapServers(),
            "--topic",
            topic,
            "--completed-only",
            "--out",
            trace.toString());
    assertEquals(0, traced.exit(), traced.err());
    List<TraceRequest> lines = TraceSharing.read(trace);
    assertEquals(requests, lines.size());

    // the trace is the traffic: lengths as the server reported them to the client, and sharing
    // that gives exactly the cached tokens the server reported, in the order it was sent
    int[] originalCached = original.stream().mapToInt(ChatTraffic.Usage::cached).toArray();
    int sharing = 0;
    for (int n = 0; n < requests; n++) {
      String on = "request " + n + ": " + lines.get(n);
      assertEquals(original.get(n).prompt(), lines.get(n).inputTokens(), on);
      assertEquals(traffic.get(n).maxTokens(), original.get(n).completion(), on);
      assertEquals(original.get(n).completion(), lines.get(n).outputTokens(), on);
      sharing += originalCached[n] > 0 ? 1 : 0;
    }
    assertEquals(16, sharing, "requests that shared a prefix with one before them");
    assertArrayEquals(originalCached, TraceSharing.cachedTokens(lines, CACHE_BLOCK_TOKENS));

    Path requestsOut = dir.resolve("replayed.jsonl");
    Map<Integer, JsonNode> replayed;
    List<Integer> arrived;
    try (Simulator candidate =
        Simulator.start(
            SimulatorConfig.inProcess(List.of("quick"), 0.2, 0.2)
                .withSeed(6L)
                .withRequestsKept(1_000))) {
      replayed = byNumber(replay(kafka, candidate, trace, requestsOut));
      arrived = arrivalOrder(candidate, replayed);
    }
    assertEquals(requests, replayed.size(), "every request of the trace, once");
    assertEquals(requests, arrived.size());
    int[] expectedCached = TraceSharing.cachedTokens(lines, arrived, CACHE_BLOCK_TOKENS);
    JsonNode first = replayed.get(0);
    double maxLagMs = 0;
    for (int n = 0; n < requests; n++) {
      JsonNode r = replayed.get(n);
      String on = "request " + n + ": " + r;
      assertEquals("completed", r.get("outcome").asText(), on);
      assertEquals(original.get(n).prompt(), r.get("promptTokens").asInt(), on);
      assertEquals(original.get(n).completion(), r.get("outputTokens").asInt(), on);
      assertEquals(expectedCached[n], r.get("cachedTokens").asInt(), on);
      // started at the trace's offset plus its own schedule lag (less the first's), to the ms of
      // startMs (floored) and the lag's rounding
      double lagMs = r.get("scheduleLagMs").asDouble() - first.get("scheduleLagMs").asDouble();
      long actualMs = r.get("startMs").asLong() - first.get("startMs").asLong();
      assertTrue(
          Math.abs(actualMs - lines.get(n).offsetMs() - lagMs) <= 2,
          on + ": started " + actualMs + " ms in, the trace says " + lines.get(n).offsetMs());
      maxLagMs = Math.max(maxLagMs, r.get("scheduleLagMs").asDouble());
    }
    // a request that arrived after exactly the requests sent before it in the original found
    // the prefix cache holding what the original's held (all of them, unless the replay's
    // concurrent requests overtook each other on their way)
    int asOriginal = 0;
    for (int i = 0; i < requests; i++) {
      int n = arrived.get(i);
      if (arrived.subList(0, i).stream().sorted().toList().equals(TraceSharing.inOrder(n))) {
        assertEquals(
            originalCached[n], replayed.get(n).get("cachedTokens").asInt(), "request " + n);
        asOriginal++;
      }
    }
    System.out.printf(
        "round trip: %d requests, %d sharing a prefix, %d arrived after the same requests as in"
            + " the original, schedule lag max %.3f ms%n",
        requests, sharing, asOriginal, maxLagMs);
  }

  /**
   * A Mooncake trace of {@code requests} lines over about two seconds, seeded: 12 system prompts of
   * 1 to 4 blocks, conversations on them whose every turn repeats the one before (its cut last
   * block then whole, under the same id) and adds 1 or 2 blocks, some prompts whose text runs past
   * their ids, and prompts of their own.
   */
  private static String mooncakeTrace(int requests, long seed) {
    Random random = new Random(seed);
    long[] nextId = {0};
    List<List<Long>> systems = new ArrayList<>();
    for (int s = 0; s < 12; s++) {
      List<Long> ids = new ArrayList<>();
      for (int b = 0, blocks = 1 + random.nextInt(4); b < blocks; b++) {
        ids.add(nextId[0]++);
      }
      systems.add(ids);
    }
    List<List<Long>> conversations = new ArrayList<>();
    for (int c = 0; c < 40; c++) {
      conversations.add(new ArrayList<>(systems.get(random.nextInt(systems.size()))));
    }
    StringBuilder trace = new StringBuilder();
    long timestamp = 0;
    for (int n = 0; n < requests; n++) {
      timestamp += random.nextInt(14);
      List<Long> ids;
      if (random.nextInt(100) < 15) {
        ids = new ArrayList<>();
        for (int b = 0, blocks = 1 + random.nextInt(3); b < blocks; b++) {
          ids.add(nextId[0]++);
        }
      } else {
        int c = random.nextInt(conversations.size());
        List<Long> conversation = conversations.get(c);
        for (int b = 0, more = 1 + random.nextInt(2); b < more; b++) {
          conversation.add(nextId[0]++);
        }
        ids = List.copyOf(conversation);
        if (conversation.size() > 10) {
          conversations.set(c, new ArrayList<>(systems.get(random.nextInt(systems.size()))));
        }
      }
      // the last block cut (1 to 512 tokens), or, for one in five, whole and text of its own after
      int input = (ids.size() - 1) * 512 + 1 + random.nextInt(512);
      if (random.nextInt(5) == 0) {
        input = ids.size() * 512 + 1 + random.nextInt(700);
      }
      trace
          .append("{\"timestamp\": ")
          .append(timestamp)
          .append(", \"input_length\": ")
          .append(input)
          .append(", \"output_length\": ")
          .append(1 + random.nextInt(12))
          .append(", \"hash_ids\": ")
          .append(ids)
          .append("}\n");
    }
    return trace.toString();
  }

  @Test
  void aMooncakeTraceReplayedGivesTheCachedTokensItsHashIdsImply(TestKafka kafka) throws Exception {
    Path trace = Files.writeString(dir.resolve("mooncake.jsonl"), mooncakeTrace(300, 52));
    List<TraceRequest> lines = TraceSharing.read(trace);
    assertEquals(300, lines.size());
    Path requestsOut = dir.resolve("replayed.jsonl");
    Map<Integer, JsonNode> replayed;
    List<Integer> arrived;
    List<RequestTruth> truths;
    ModelTruth truth;
    try (Simulator simulator =
        Simulator.start(
            SimulatorConfig.inProcess(List.of("quick"), 0.2, 0.2)
                .withSeed(7L)
                .withRequestsKept(1_000)
                .withPrefixCacheBlocks(1 << 20))) {
      replayed = byNumber(replay(kafka, simulator, trace, requestsOut));
      arrived = arrivalOrder(simulator, replayed);
      truths = simulator.truth().requests();
      truth = simulator.truth().models().get("quick");
      assertEquals(0, simulator.truth().report().prefixCache().evictedBlocks());
    }
    assertEquals(300, replayed.size(), "every request of the trace, once");
    assertEquals(300, arrived.size());
    // requests overlap: a block is the simulator's once a request holding it arrived
    int[] expected = TraceSharing.cachedTokens(lines, arrived, CACHE_BLOCK_TOKENS);
    Map<String, Integer> truthCached = new HashMap<>();
    truths.forEach(t -> truthCached.put(t.requestId(), t.cachedTokens()));
    long promptTokens = 0;
    long cachedTokens = 0;
    int hits = 0;
    for (int n = 0; n < 300; n++) {
      JsonNode r = replayed.get(n);
      String on = "request " + n + " (line " + lines.get(n).line() + "): " + r;
      assertEquals(lines.get(n).inputTokens(), r.get("promptTokens").asInt(), on);
      assertEquals(expected[n], r.get("cachedTokens").asInt(), on);
      assertEquals(expected[n], truthCached.get(r.get("requestId").asText()), on);
      promptTokens += lines.get(n).inputTokens();
      cachedTokens += expected[n];
      hits += expected[n] > 0 ? 1 : 0;
    }
    int[] inTraceOrder = TraceSharing.cachedTokens(lines, CACHE_BLOCK_TOKENS);
    assertEquals(239, Arrays.stream(inTraceOrder).filter(c -> c > 0).count());
    assertEquals(630_192, Arrays.stream(inTraceOrder).sum(), "the trace's sharing, in its order");
    PromptCache whole = truth.prefixCache();
    assertEquals(PromptCache.of(300, promptTokens, cachedTokens), whole);
    System.out.printf(
        "mooncake trace: 300 requests, %d with cached tokens, hit rate %s (%d of %d tokens),"
            + " replayed in the trace's order: %s%n",
        hits,
        whole.hitRate(),
        cachedTokens,
        promptTokens,
        arrived.equals(TraceSharing.inOrder(300)));
  }
}
