package io.tpotstream.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenKind;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Lines in start order whatever the order requests end in, hash ids renumbered densely in order of
 * first appearance and cut to the input's blocks, failed and unfinished requests with what they got
 * (or left out), requests without their start left out, filters on model and labels.
 */
class TraceBuilderTest {
  private static final long T0 = 1_767_225_600_000L;
  private static final Map<String, String> LABELS = Map.of("app", "chat");

  private final List<TokenEvent> events = new ArrayList<>();

  private void start(long ms, String id, String model, List<Long> hashes, int blocks) {
    TokenEvent e = TokenEvent.start(T0 + ms, "run", id, model, LABELS, null, "p");
    events.add(hashes == null ? e : e.withPrefix(hashes, blocks));
  }

  private void tokens(long ms, String id, String model, int from, int count) {
    for (int seq = from; seq < from + count; seq++) {
      events.add(
          TokenEvent.token(
              T0 + ms, "run", id, model, LABELS, ms * 1_000_000, seq, 1, TokenKind.CONTENT, "p"));
    }
  }

  private void end(long ms, String id, String model, Integer prompt, Integer completion, int n) {
    events.add(
        TokenEvent.end(
            T0 + ms,
            "run",
            id,
            model,
            LABELS,
            ms * 1_000_000,
            n,
            prompt,
            completion,
            "stop",
            null,
            "p"));
  }

  private void error(long ms, String id, String model, int chunks) {
    events.add(
        TokenEvent.error(
            T0 + ms,
            "run",
            id,
            model,
            LABELS,
            ms * 1_000_000,
            chunks,
            "http_5xx",
            500,
            "boom",
            null,
            "p"));
  }

  private record Written(String text, TraceBuilder.Counts counts) {}

  private Written trace(TraceBuilder.Filter filter) throws IOException {
    StringWriter out = new StringWriter();
    TraceBuilder builder = new TraceBuilder(filter, out);
    for (TokenEvent e : events) {
      builder.accept(e);
    }
    TraceBuilder.Counts counts = builder.finish();
    return new Written(out.toString(), counts);
  }

  private void traffic() {
    // "late" started before the input: only its end is there
    end(5, "late", "m", 10, 2, 2);
    start(100, "a", "m", List.of(-5L, 77L, 9_000_000_000_000_000_000L), 3);
    start(120, "b", "m", List.of(-5L, 77L, 31L, 32L), 4);
    tokens(130, "b", "m", 0, 3);
    end(140, "b", "m", 1_500, 3, 3); // ends first; input 1,500 tokens: 3 blocks of 512
    tokens(150, "a", "m", 0, 2);
    end(160, "a", "m", 2_000, null, 2); // no completion tokens: counted chunks
    start(170, "c", "other", List.of(31L), 1);
    error(180, "c", "other", 0);
    start(190, "d", "m", null, 0);
    tokens(200, "d", "m", 0, 4); // never ends within the input
    events.add(TokenEvent.heartbeat(T0 + 300, "run", "p", T0 + 250, true, null));
  }

  @Test
  void linesInStartOrderWithDenseIdsCutToTheInputAndWhatFailedOrDidNotEnd() throws IOException {
    traffic();
    Written w = trace(TraceBuilder.Filter.ALL);
    assertEquals(
        String.join(
            "\n",
            "{\"timestamp\":0,\"input_length\":2000,\"output_length\":2,\"hash_ids\":[0,1,2],"
                + "\"block_size\":512,\"model\":\"m\",\"labels\":{\"app\":\"chat\"}}",
            "{\"timestamp\":20,\"input_length\":1500,\"output_length\":3,\"hash_ids\":[0,1,3],"
                + "\"block_size\":512,\"model\":\"m\",\"labels\":{\"app\":\"chat\"}}",
            "{\"timestamp\":70,\"output_length\":0,\"hash_ids\":[3],"
                + "\"block_size\":512,\"model\":\"other\",\"labels\":{\"app\":\"chat\"}}",
            "{\"timestamp\":90,\"output_length\":4,\"hash_ids\":[],"
                + "\"block_size\":512,\"model\":\"m\",\"labels\":{\"app\":\"chat\"}}",
            ""),
        w.text());
    assertEquals(new TraceBuilder.Counts(4, 2, 1, 1, 0, 1, 2, 3, 1, 0, 4, T0 + 100), w.counts());
  }

  @Test
  void completedOnlyAndTheFiltersLeaveTheOthersOut() throws IOException {
    traffic();
    Written completed = trace(new TraceBuilder.Filter(Set.of(), Map.of(), true));
    assertEquals(2, completed.text().lines().count());
    assertEquals(2, completed.counts().leftOut());
    Written other = trace(new TraceBuilder.Filter(Set.of("other"), Map.of("app", "chat"), false));
    assertEquals(
        "{\"timestamp\":0,\"output_length\":0,\"hash_ids\":[0],\"block_size\":512,"
            + "\"model\":\"other\",\"labels\":{\"app\":\"chat\"}}\n",
        other.text());
    assertEquals("", trace(new TraceBuilder.Filter(Set.of(), Map.of("app", "x"), false)).text());
  }

  @Test
  void aPromptLongerThanItsHashesIsCounted() throws IOException {
    start(0, "long", "m", List.of(1L, 2L), 1_500);
    end(10, "long", "m", null, 1, 1);
    assertEquals(1, trace(TraceBuilder.Filter.ALL).counts().promptsPastHashBound());
  }
}
