package io.tpotstream.simulator.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ErrorRates;
import io.tpotstream.simulator.profile.FixedStall;
import io.tpotstream.simulator.profile.IntRange;
import io.tpotstream.simulator.profile.ModelProfile;
import io.tpotstream.simulator.profile.Profiles;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlannerTest {
  private static final ModelProfile CONSTANT =
      ModelProfile.of(new Distribution.Constant(100), new Distribution.Constant(5));

  @Test
  void builtInOutputIsExactlyMaxTokensOneTokenPerChunkCappedAtLength() {
    ResponsePlan plan = Planner.plan(Profiles.builtIns().get("model-a"), 1, "model-a", "r", 200, 9);

    assertEquals(200, plan.chunks());
    assertEquals(200, plan.outputTokens());
    assertEquals(200, plan.tokensThrough(199));
    assertTrue(plan.lengthCapped());
    assertEquals(9, plan.promptTokens());
    assertEquals(Fault.NONE, plan.fault());
    assertEquals(ResponsePlan.NONE, plan.cutAfterChunks());
    assertEquals(ResponsePlan.NONE, plan.malformedBeforeSeq());
  }

  @Test
  void withoutMaxTokensTheOutputIsTheProfilesDefault() {
    ResponsePlan plan = Planner.plan(CONSTANT, 1, "m", "r", null, 1);
    assertEquals(ModelProfile.DEFAULT_MAX_TOKENS, plan.outputTokens());
  }

  @Test
  void constantProfileSchedulesTheTtftThenExactGaps() {
    ResponsePlan plan = Planner.plan(CONSTANT, 1, "m", "r", 10, 1);

    assertEquals(100_000_000L, plan.waitNs(0));
    for (int seq = 1; seq < 10; seq++) {
      assertEquals(5_000_000L, plan.waitNs(seq));
    }
    assertEquals(145_000_000L, plan.totalWaitNs());
  }

  @Test
  void aGatewayDelayLengthensTheFirstWaitOnly() {
    ResponsePlan plan = Planner.plan(CONSTANT.withGatewayDelayMs(50), 1, "m", "r", 10, 1);

    assertEquals(50_000_000L, plan.gatewayDelayNs());
    assertEquals(150_000_000L, plan.waitNs(0));
    for (int seq = 1; seq < 10; seq++) {
      assertEquals(5_000_000L, plan.waitNs(seq));
    }
    assertEquals(0, Planner.plan(CONSTANT, 1, "m", "r", 10, 1).gatewayDelayNs());
  }

  @Test
  void fixedStallReplacesTheGapBeforeItsChunk() {
    ModelProfile stalled = CONSTANT.withFixedStalls(List.of(new FixedStall(50, 150)));
    ResponsePlan plan = Planner.plan(stalled, 1, "m", "r", 100, 1);

    assertEquals(150_000_000L, plan.waitNs(50));
    assertEquals(5_000_000L, plan.waitNs(49));
    assertEquals(5_000_000L, plan.waitNs(51));
  }

  @Test
  void outputLengthIsDrawnFromItsRangeAndCappedByMaxTokens() {
    ModelProfile ranged = CONSTANT.withOutputTokens(new IntRange(10, 20));
    for (int i = 0; i < 50; i++) {
      ResponsePlan plan = Planner.plan(ranged, i, "m", "r", 1000, 1);
      assertTrue(plan.outputTokens() >= 10 && plan.outputTokens() <= 20);
      assertFalse(plan.lengthCapped());
    }
    ResponsePlan capped = Planner.plan(ranged, 1, "m", "r", 5, 1);
    assertEquals(5, capped.outputTokens());
    assertTrue(capped.lengthCapped());
  }

  @Test
  void chunksOfSeveralTokensAddUpToTheOutputAndReasoningComesFirst() {
    ModelProfile profile = CONSTANT.withTokensPerChunk(new IntRange(1, 3)).withReasoningShare(0.25);
    ResponsePlan plan = Planner.plan(profile, 7, "m", "r", 100, 1);

    assertEquals(25, plan.reasoningTokens());
    assertEquals(100, plan.tokensThrough(plan.chunks() - 1));
    boolean seenContent = false;
    int reasoningTokens = 0;
    for (int seq = 0; seq < plan.chunks(); seq++) {
      assertTrue(plan.tokens(seq) >= 1 && plan.tokens(seq) <= 3);
      if (plan.reasoning(seq)) {
        assertFalse(seenContent, "reasoning after content at " + seq);
        reasoningTokens += plan.tokens(seq);
      } else {
        seenContent = true;
      }
    }
    assertEquals(25, reasoningTokens);
    assertTrue(plan.chunks() < 100);
  }

  @Test
  void faultsFollowTheirRatesAndPlaces() {
    ModelProfile limited = CONSTANT.withErrors(new ErrorRates(1, 3, 0, 0, null, 0, null));
    assertEquals(Fault.HTTP_429, Planner.plan(limited, 1, "m", "r", 10, 1).fault());
    assertEquals(3, Planner.plan(limited, 1, "m", "r", 10, 1).retryAfterSeconds());
    ModelProfile broken = CONSTANT.withErrors(new ErrorRates(0, 1, 1, 0, null, 0, null));
    assertEquals(Fault.HTTP_500, Planner.plan(broken, 1, "m", "r", 10, 1).fault());
    ModelProfile cut = CONSTANT.withErrors(new ErrorRates(0, 1, 0, 1, 4, 1, 2));
    ResponsePlan plan = Planner.plan(cut, 1, "m", "r", 10, 1);
    assertEquals(4, plan.cutAfterChunks());
    assertEquals(2, plan.malformedBeforeSeq());
    ModelProfile anywhere = CONSTANT.withErrors(new ErrorRates(0, 1, 0, 1, null, 0, null));
    for (int seed = 0; seed < 100; seed++) {
      int after = Planner.plan(anywhere, seed, "m", "r", 10, 1).cutAfterChunks();
      assertTrue(after >= 1 && after <= 9, "cut after " + after);
    }
  }

  @Test
  void faultRatesMatchTheirProbabilityOverManyRequests() {
    ModelProfile sometimes = CONSTANT.withErrors(new ErrorRates(0.1, 1, 0.05, 0, null, 0, null));
    int rateLimited = 0;
    int failed = 0;
    for (int i = 0; i < 10_000; i++) {
      Fault fault = Planner.plan(sometimes, 99, "m", "request-" + i, 1, 1).fault();
      rateLimited += fault == Fault.HTTP_429 ? 1 : 0;
      failed += fault == Fault.HTTP_500 ? 1 : 0;
    }
    assertEquals(1000, rateLimited, 100);
    assertEquals(500, failed, 75);
  }

  @Test
  void samePlanForTheSameSeedModelAndRequestId() {
    ModelProfile profile =
        Profiles.builtIns().get("model-b").withTokensPerChunk(new IntRange(1, 2));
    ResponsePlan a = Planner.plan(profile, 5, "model-b", "id-1", 64, 1);
    ResponsePlan b = Planner.plan(profile, 5, "model-b", "id-1", 64, 1);
    ResponsePlan other = Planner.plan(profile, 5, "model-b", "id-2", 64, 1);

    assertEquals(a.chunks(), b.chunks());
    boolean differs = false;
    for (int seq = 0; seq < a.chunks(); seq++) {
      assertEquals(a.text(seq), b.text(seq));
      assertEquals(a.waitNs(seq), b.waitNs(seq));
      assertEquals(a.tokens(seq), b.tokens(seq));
      differs |= seq < other.chunks() && a.waitNs(seq) != other.waitNs(seq);
    }
    assertTrue(differs);
  }
}
