package io.tpotstream.aggregator.stage2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.slo.SloSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateSettingsTest {
  @Test
  void theDefaultsReadAsTheirOptions() {
    assertEquals(
        "--window 10s --grace 0s --group-by (none) --slo (none) --request-timeout 10m"
            + " --producer-timeout 1m --client-lag-threshold 1ms --max-clock-skew 5m",
        StateSettings.of(StageSettings.defaults()));
  }

  @Test
  void everySettingThatShapesTheWindowsIsRemembered() {
    String defaults = StateSettings.of(StageSettings.defaults());
    for (StageSettings other :
        List.of(
            StageSettings.defaults().withRequestTimeout(Duration.ofMinutes(1)),
            StageSettings.defaults().withProducerTimeout(Duration.ofSeconds(30)),
            StageSettings.defaults().withClientLagThreshold(Duration.ofMillis(5)),
            StageSettings.defaults().withMaxClockSkew(Duration.ofMinutes(1)))) {
      assertFalse(StateSettings.compatible(defaults, StateSettings.of(other)), other.toString());
    }
    // a store of an older tpot kept no timeouts: it goes on when the rest agrees
    String older = "--window 10s --grace 0s --group-by (none) --slo (none)";
    assertTrue(StateSettings.compatible(older, defaults));
    assertFalse(
        StateSettings.compatible(
            "--window 1m --grace 0s --group-by (none) --slo (none)", defaults));
  }

  @Test
  void labelsAndObjectivesAreSortedAndGoodputIsAddedWhenSet() {
    StageSettings settings =
        StageSettings.defaults()
            .withWindow(Duration.ofMinutes(1))
            .withGrace(Duration.ofMillis(500))
            .withGroupBy(List.of("run", "concurrency"))
            .withSlo(SloSpec.parse("ttft_p99=1s,goodput=90%", "ttft=1s"));
    assertEquals(
        "--window 1m --grace 500ms --group-by concurrency,run --slo goodput=0.9,ttft_p99=1000ms"
            + " --goodput "
            + settings.slo().goodputText()
            + " --request-timeout 10m --producer-timeout 1m --client-lag-threshold 1ms"
            + " --max-clock-skew 5m",
        StateSettings.of(settings));
  }
}
