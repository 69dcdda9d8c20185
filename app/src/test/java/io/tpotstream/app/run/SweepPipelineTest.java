package io.tpotstream.app.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.report.Report;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep with an SLO through the whole pipeline (simulator, producer, embedded broker, aggregator,
 * sink): summaries split by stage, every window judged, the run's verdict.
 */
@Tag("slow")
class SweepPipelineTest {
  @Test
  void aSweepIsSplitByStageAndAnImpossibleSloFailsTheRun(@TempDir Path out) throws Exception {
    Path requests = out.resolve("requests.jsonl");
    SimulatedRun run =
        SimulatedRun.of(
            out,
            simulatorUrl ->
                Map.of(
                    "base_url", simulatorUrl,
                    "models", "model-a",
                    "sweep", "concurrency=1,4",
                    "total_requests", "4",
                    "max_tokens", "30",
                    "api_key", "demo"),
            List.of("stage"),
            SloSpec.parse("tpot_max=1us,error_rate=50%", "ttft=60s"),
            requests);
    Pipeline.Outcome outcome = run.outcome();
    String text = run.printed();

    List<WindowSummary> stages = outcome.wholeRun();
    assertEquals(
        List.of("model-a{stage=concurrency-1}", "model-a{stage=concurrency-4}"),
        stages.stream().map(WindowSummary::series).toList());
    for (WindowSummary s : stages) {
      assertEquals(4, s.requests().completed(), s.series());
      assertEquals(4 * 29, s.tpot().count(), s.series());
      assertEquals(4L, s.slo().goodRequests(), s.series());
      assertFalse(s.slo().met());
    }
    assertEquals(3, outcome.verdict().exitCode());
    assertTrue(
        outcome.verdict().line().startsWith("SLO failed: tpot_max "), outcome.verdict().line());
    assertTrue(outcome.verdict().line().contains("(model-a{stage=concurrency-4})"));
    assertTrue(text.strip().endsWith(outcome.verdict().line()), text);
    // the live view (stderr) marks the window; stdout has the results only
    assertTrue(run.shown().contains("<< SLO MISSED: tpot_max "), run.shown());
    assertTrue(run.shown().lines().anyMatch(l -> l.startsWith("progress: ")), run.shown());
    assertFalse(text.contains(" TPOT p50 "), text);

    long good = 0;
    for (String line : Files.readAllLines(out.resolve("summaries.jsonl"))) {
      JsonNode slo = Json.MAPPER.readTree(line).path("slo");
      assertEquals("tpot_max", slo.path("objectives").get(0).path("name").asText());
      good += slo.path("goodRequests").asLong();
    }
    assertEquals(8, good, "every request judged good once, in the window of its end");
    assertTrue(Files.readAllLines(outcome.csv()).get(0).contains(",label_stage,"));
    assertEquals(8, Files.readAllLines(requests).size());
    assertTrue(Files.size(out.resolve(Report.KNEE_PNG)) > 1_000);
  }
}
