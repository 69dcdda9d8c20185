package io.tpotstream.aggregator.stage2;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.slo.SloSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateSettingsTest {
  @Test
  void theDefaultsReadAsTheirOptions() {
    assertEquals(
        "--window 10s --grace 0s --group-by (none) --slo (none)",
        StateSettings.of(StageSettings.defaults()));
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
            + settings.slo().goodputText(),
        StateSettings.of(settings));
  }
}
