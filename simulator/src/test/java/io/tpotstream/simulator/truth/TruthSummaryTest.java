package io.tpotstream.simulator.truth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class TruthSummaryTest {
  private static final long MS = 1_000_000L;

  /**
   * 100 chunks 2 ms apart as intended; chunk i goes out {@code errorsUs[i]} µs after it was due (0
   * when the array is shorter), the next one due 2 ms after that.
   */
  private static GroundTruth oneRequest(String model, long... errorsUs) {
    GroundTruth truth = new GroundTruth(7, 10, null);
    RequestRecorder recorder = truth.begin("r-1", model, 0);
    long sentNs = 0;
    for (int seq = 0; seq < 100; seq++) {
      long intendedNs = seq == 0 ? 100 * MS : 2 * MS;
      long dueNs = sentNs + intendedNs;
      sentNs = dueNs + (seq < errorsUs.length ? errorsUs[seq] : 50) * 1000;
      recorder.chunk(seq, intendedNs, dueNs, sentNs, 1);
    }
    recorder.end(Outcome.COMPLETED);
    return truth;
  }

  @Test
  void aRunWithinTheLimitGetsATableAndNoWarning() {
    TruthReport report = oneRequest("model-a").report();

    assertEquals(
        new Pacing(
            100,
            new BigDecimal("0.050"),
            new BigDecimal("0.050"),
            new BigDecimal("0.050"),
            new BigDecimal("0.200"),
            true),
        report.pacing());
    assertEquals(
        List.of(
            "What the simulator sent (seed 7), in ms:",
            "model          requests   chunks  gap p50 / p99          intended p50 / p99     "
                + "pacing error p50 / p99 / max",
            // 2.050 ms is recorded as HdrHistogram's 2.051 (2 µs buckets above 2.048 ms)
            "model-a               1      100  2.051 / 2.051          2.000 / 2.000          "
                + "0.050 / 0.050 / 0.050",
            "all models                   100                                                "
                + "0.050 / 0.050 / 0.050"),
        TruthSummary.lines(report));
  }

  @Test
  void aP99Above200MicrosecondsAddsTheWarningLine() {
    TruthReport report = oneRequest("model-b", 1000, 1000, 1000).report();

    Pacing pacing = report.pacing();
    assertEquals(new BigDecimal("1.000"), pacing.p99Ms());
    assertFalse(pacing.withinLimit());
    List<String> lines = TruthSummary.lines(report);
    assertEquals(5, lines.size());
    assertEquals(
        "warning: the simulator's pacing error p99 is 1.000 ms, above its 0.200 ms limit: chunks"
            + " went out up to that much later than their profile asks (the machine was busy, or"
            + " more streams than it can pace), so gaps measured against it differ from the"
            + " profile by up to that much; give it a quieter machine or fewer streams",
        lines.get(4));
  }

  @Test
  void anEarlyChunkCountsByHowFarFromDueItWent() {
    TruthReport report = oneRequest("model-c", -120, 80).report();

    ModelTruth model = report.models().get("model-c");
    assertEquals(new BigDecimal("0.120"), model.pacingError().maxMs());
    assertEquals(new BigDecimal("0.050"), model.pacingError().p50Ms());
    assertTrue(report.pacing().withinLimit());
  }

  @Test
  void afterAResetTheChunksOfARequestStillStreamingCountInTheNewStatistics() {
    GroundTruth truth = new GroundTruth(7, 10, null);
    RequestRecorder recorder = truth.begin("r-1", "model-a", 0);
    recorder.chunk(0, 100 * MS, 100 * MS, 100 * MS, 1);
    recorder.chunk(1, 2 * MS, 102 * MS, 102 * MS, 1);
    truth.reset();
    recorder.chunk(2, 2 * MS, 104 * MS, 104 * MS, 1);
    recorder.chunk(3, 2 * MS, 106 * MS, 106 * MS, 1);
    recorder.end(Outcome.COMPLETED);

    ModelTruth model = truth.models().get("model-a");
    assertEquals(2, model.chunks());
    assertEquals(2, model.gap().count());
    assertEquals(0, model.requests());
    assertEquals(2, truth.report().pacing().chunks());
  }
}
