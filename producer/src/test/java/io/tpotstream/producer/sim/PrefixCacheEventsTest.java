package io.tpotstream.producer.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.EventType;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.producer.testing.Runs;
import io.tpotstream.producer.testing.TopicReader;
import io.tpotstream.simulator.Simulator;
import io.tpotstream.simulator.SimulatorConfig;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.testkit.KafkaExtension;
import io.tpotstream.testkit.TestKafka;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The turns of a conversation share their history as a prompt prefix: through the real simulator
 * (its prefix cache on, blocks of 16 tokens, 4 characters a token) and the real producer, each
 * turn's end event carries exactly the cached tokens the simulator reported, in both dialects.
 *
 * <p>The conversation: Q1 of 640 characters, A1 of 100, Q2 of 60, A2 of 100, Q3 of 36. Turn 1 sends
 * Q1 (160 tokens, 10 whole blocks, none cached); turn 2 sends Q1 A1 Q2 (800 characters, 200 tokens,
 * 12 whole blocks, of which turn 1's 10: 160 cached); turn 3 sends the whole history (1,036
 * characters, 259 tokens, of which turn 2's 12 blocks: 192 cached).
 */
@ExtendWith(KafkaExtension.class)
@Tag("slow")
class PrefixCacheEventsTest {
  private static Simulator simulator;

  @TempDir static Path dir;

  @BeforeAll
  static void startSimulator() {
    ModelProfile fast =
        ModelProfile.of(new Distribution.Constant(1), new Distribution.Constant(0.5));
    simulator =
        Simulator.start(
            SimulatorConfig.defaults()
                .withPort(0)
                .withSeed(5L)
                .withEventLoops(1)
                .withWarmupChunks(0)
                .withProfile("chat-openai", fast)
                .withProfile("chat-anthropic", fast));
  }

  @AfterAll
  static void stopSimulator() {
    simulator.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"openai", "anthropic"})
  void eachTurnReportsTheCachedTokensOfTheHistoryItShares(String api, TestKafka kafka)
      throws Exception {
    Path dataset = dir.resolve(api + ".jsonl");
    Files.writeString(
        dataset,
        "{\"conversations\": [{\"from\": \"human\", \"value\": \""
            + "a".repeat(640)
            + "\"}, {\"from\": \"gpt\", \"value\": \""
            + "b".repeat(100)
            + "\"}, {\"from\": \"human\", \"value\": \""
            + "c".repeat(60)
            + "\"}, {\"from\": \"gpt\", \"value\": \""
            + "d".repeat(100)
            + "\"}, {\"from\": \"human\", \"value\": \""
            + "e".repeat(36)
            + "\"}]}\n");
    String model = "chat-" + api;
    Runs.Finished run =
        Runs.run(
            kafka,
            simulator.baseUrl(),
            model,
            Map.of(
                "api", api,
                "dataset", dataset.toString(),
                "concurrency", "1",
                "total_requests", "3",
                "max_tokens", "3"));

    List<TokenEvent> ends =
        TopicReader.byRequest(run.records()).values().stream()
            .map(events -> events.get(events.size() - 1))
            .toList();
    ends.forEach(end -> assertEquals(EventType.END, end.type(), end.toString()));
    Set<List<Integer>> promptAndCached =
        ends.stream()
            .map(end -> List.of(end.promptTokens(), end.cachedTokens()))
            .collect(Collectors.toSet());
    assertEquals(Set.of(List.of(160, 0), List.of(200, 160), List.of(234, 192)), promptAndCached);
    assertEquals(
        new PromptCache(3, 594, 352, new BigDecimal("0.5926")),
        simulator.truth().models().get(model).prefixCache(),
        "the simulator's own record says the same");
  }
}
