package io.tpotstream.app.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LiveViewSloTest {
  private static WindowSummary window(SloSpec spec) {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(2_000, 99);
    stats.tpot.recordMicros(80_000);
    stats.completed(4, false);
    stats.good(3);
    return stats.toSummary("m", "m", Map.of(), 0, 10_000, 1_000, spec);
  }

  @Test
  void aWindowThatMissedItsSloIsMarkedWithTheObjective() {
    String line = LiveView.line(window(SloSpec.parse("tpot_max=50ms", "ttft=1s")));
    assertTrue(line.endsWith(", goodput 75%  << SLO MISSED: tpot_max 80.063 ms > 50 ms"), line);
  }

  @Test
  void aWindowThatMetItIsNotMarked() {
    String line = LiveView.line(window(SloSpec.parse("tpot_p50=50ms", null)));
    assertFalse(line.contains("SLO"), line);
    assertFalse(LiveView.line(window(SloSpec.NONE)).contains("goodput"));
  }
}
