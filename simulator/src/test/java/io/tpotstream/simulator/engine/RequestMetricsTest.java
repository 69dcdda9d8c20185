package io.tpotstream.simulator.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.simulator.plan.Planner;
import io.tpotstream.simulator.profile.Distribution;
import io.tpotstream.simulator.profile.ModelProfile;
import org.junit.jupiter.api.Test;

class RequestMetricsTest {
  @Test
  void numbersAreMillisecondsWithAtMostThreeDecimals() {
    // 85.2 ms to the first of 137 chunks, 1,240.5 ms to the last, 128 tokens
    RequestMetrics metrics = new RequestMetrics(85_200_400L, 1_240_500_000L, 0, 137, 128);

    assertEquals(
        "{\"time_to_first_token_ms\":85.2,\"generation_time_ms\":1240.5,\"queue_time_ms\":0,"
            + "\"mean_itl_ms\":9.121,\"tokens_per_second\":103.184}",
        metrics.json());
  }

  @Test
  void oneChunkHasNoMeanGapAndNoRate() {
    assertEquals(
        "{\"time_to_first_token_ms\":0.001,\"generation_time_ms\":0,\"queue_time_ms\":0}",
        new RequestMetrics(500, 0, 0, 1, 3).json());
  }

  @Test
  void aNonStreamedAnswerReportsItsPlanWithoutTheGatewayDelay() {
    ModelProfile profile =
        ModelProfile.of(new Distribution.Constant(80), new Distribution.Constant(4))
            .withGatewayDelayMs(200);

    RequestMetrics metrics = RequestMetrics.planned(Planner.plan(profile, 1, "m", "r", 11, 1));

    assertEquals(new RequestMetrics(80_000_000L, 40_000_000L, 0, 11, 11), metrics);
    assertEquals(
        "{\"time_to_first_token_ms\":80,\"generation_time_ms\":40,\"queue_time_ms\":0,"
            + "\"mean_itl_ms\":4,\"tokens_per_second\":275}",
        metrics.json());
  }
}
