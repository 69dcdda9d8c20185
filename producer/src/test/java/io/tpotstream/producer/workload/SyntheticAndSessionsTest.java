package io.tpotstream.producer.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SyntheticAndSessionsTest {

  @Test
  void distributionsParseAndStayInRange() {
    assertEquals(new LengthDistribution.Fixed(256), LengthDistribution.parse("k", "256"));
    assertEquals(new LengthDistribution.Uniform(10, 20), LengthDistribution.parse("k", "10-20"));
    assertEquals(
        new LengthDistribution.Uniform(10, 20), LengthDistribution.parse("k", "uniform:10-20"));
    assertEquals(
        new LengthDistribution.LogNormal(512, 0.6),
        LengthDistribution.parse("k", "lognormal:512,0.6"));
    SplittableRandom random = new SplittableRandom(7);
    LengthDistribution uniform = LengthDistribution.parse("k", "10-20");
    int[] seen = new int[21];
    for (int i = 0; i < 2_000; i++) {
      seen[uniform.sample(random)]++;
    }
    for (int v = 10; v <= 20; v++) {
      assertTrue(seen[v] > 0, "every value of the range is drawn: " + v);
    }
    assertEquals(2_000, Arrays.stream(seen).sum());
    LengthDistribution logNormal = LengthDistribution.parse("k", "lognormal:512,0.6");
    int[] draws = new int[10_001];
    for (int i = 0; i < draws.length; i++) {
      draws[i] = logNormal.sample(random);
    }
    Arrays.sort(draws);
    int median = draws[5_000];
    assertTrue(median > 490 && median < 535, "median near 512: " + median);
    assertTrue(draws[9_900] > 1_800, "a long tail: p99 " + draws[9_900]);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> LengthDistribution.parse("--input-len", "20-10"));
    assertEquals(
        "--input-len: cannot read '20-10' as a length: write 256 (fixed), 128-1024 (uniform) or"
            + " lognormal:512,0.6 (median, sigma), in tokens from 1 to 1000000",
        e.getMessage());
  }

  @Test
  void syntheticPromptsHaveTheDrawnLengthAndDependOnlyOnSeedAndIndex() {
    SyntheticPrompts a =
        new SyntheticPrompts(
            LengthDistribution.parse("k", "100-300"), LengthDistribution.parse("k", "64"), 42);
    SyntheticPrompts b =
        new SyntheticPrompts(
            LengthDistribution.parse("k", "100-300"), LengthDistribution.parse("k", "64"), 42);
    for (int n = 0; n < 20; n++) {
      Turn t = a.get(n).turns().get(0);
      String text = t.messages().get(0).get("content").asText();
      assertEquals(t.inputTokens(), text.split(" ").length, "one word per token");
      assertTrue(t.inputTokens() >= 100 && t.inputTokens() <= 300);
      assertEquals(64, t.maxTokens());
      assertEquals(t, b.get(n).turns().get(0));
    }
    assertNotEquals(a.get(0), a.get(1));
    Turn noOutput =
        new SyntheticPrompts(LengthDistribution.parse("k", "8"), null, 1).get(0).turns().get(0);
    assertNull(noOutput.maxTokens(), "the config's max_tokens applies");
  }

  @Test
  void sessionsSendTurnsInOrderAndEveryModelTheSameConversations() {
    Conversation two =
        new Conversation(
            List.of(
                new Turn(Dataset.userMessage("q1"), null, 1),
                new Turn(Dataset.userMessage("q1 a1 q2"), null, 2)));
    Conversation one = Conversation.of(new Turn(Dataset.userMessage("single"), 5, 300));
    ConversationSource source =
        new ConversationSource() {
          @Override
          public Conversation get(long n) {
            return n % 2 == 0 ? two : one;
          }

          @Override
          public String describe() {
            return "test";
          }

          @Override
          public boolean labelsInputLength() {
            return true;
          }
        };
    Sessions sessions = new Sessions(source, List.of("a", "b"));
    Sessions.Request s0 = sessions.next();
    Sessions.Request s1 = sessions.next();
    Sessions.Request s2 = sessions.next();
    assertEquals(List.of("a", "b", "a"), List.of(s0.model(), s1.model(), s2.model()));
    assertEquals(two, s0.conversation());
    assertEquals(two, s1.conversation(), "model b gets conversation 0 too");
    assertEquals(one, s2.conversation());
    assertEquals("0-127", s0.inputLength());
    assertEquals("128-511", s2.inputLength());
    assertEquals(0, sessions.ready(), "turn 2 waits for turn 1");
    sessions.finished(s1);
    sessions.finished(s2);
    Sessions.Request next = sessions.next();
    assertEquals(1, next.session());
    assertEquals(1, next.turn());
    assertEquals("b", next.model());
    assertTrue(next.lastTurn());
    assertEquals("q1 a1 q2", next.input().messages().get(0).get("content").asText());
    Sessions.Request fresh = sessions.next();
    assertEquals(3, fresh.session(), "nothing ready: a new conversation starts");
  }
}
