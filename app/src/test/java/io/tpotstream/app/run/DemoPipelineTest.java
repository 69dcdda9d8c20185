package io.tpotstream.app.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.producer.result.ModelResult;
import io.tpotstream.sink.report.Report;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's wiring end to end: simulator, producer, embedded broker, aggregator, sink, report;
 * with --quiet, so the results print and nothing else does.
 */
@Tag("slow")
class DemoPipelineTest {
  private static final int REQUESTS = 20;
  private static final int MAX_TOKENS = 100;

  @Test
  void shortenedDemoPrintsTheSeedTableForThreeModelsAndLeavesItsFiles(@TempDir Path out)
      throws Exception {
    // --quiet: no live view, no progress; the results still print
    SimulatedRun run =
        SimulatedRun.of(
            Progress.Mode.QUIET, out, DemoPipelineTest::overrides, List.of(), SloSpec.NONE, null);
    Pipeline.Outcome outcome = run.outcome();
    String text = run.printed();

    List<WindowSummary> table = outcome.wholeRun();
    assertEquals(
        List.of("model-a", "model-b", "model-c"),
        table.stream().map(WindowSummary::series).toList());
    for (WindowSummary s : table) {
      LatencySummary tpot = s.tpot();
      // every response has MAX_TOKENS single-token chunks: MAX_TOKENS - 1 gaps each, all counted
      assertEquals((long) REQUESTS * (MAX_TOKENS - 1), tpot.count(), s.series());
      for (BigDecimal stat : tpot.articleMs()) {
        assertNotNull(stat, s.series());
      }
      assertEquals(REQUESTS, s.requests().completed());
      assertEquals(0, s.requests().failed());
    }
    // the pipeline's counts equal the producer's own measurements
    for (ModelResult m : outcome.producer().models()) {
      WindowSummary s =
          table.stream().filter(t -> t.model().equals(m.model())).findFirst().orElseThrow();
      assertEquals(m.tpot().count(), s.tpot().count(), m.model());
    }
    assertTrue(text.contains("P99.99"), text);
    assertEquals("", run.shown(), "nothing on stderr with --quiet");
    assertFalse(text.contains(" TPOT p50 "), "no window lines: " + text);
    assertFalse(text.contains("progress: "), "no progress lines: " + text);
    assertTrue(text.contains("CSV:    " + outcome.csv()), text);
    for (String model : List.of("model-a", "model-b", "model-c")) {
      assertTrue(text.lines().anyMatch(l -> l.startsWith(model + " ")), "table row for " + model);
    }

    // files: one CSV row per summary, the report and its charts
    List<String> csv = Files.readAllLines(outcome.csv());
    long summaries =
        Files.readAllLines(out.resolve("summaries.jsonl")).stream()
            .filter(l -> !l.isBlank())
            .count();
    assertTrue(
        csv.get(0).startsWith("window_start,window_end,ts,series,model,tpot_count"), csv.get(0));
    assertEquals(summaries + 1, csv.size());
    // the simulator's own view, scraped beside: every gap it made, once, in each model's windows
    List<WindowSummary> windows =
        Files.readAllLines(out.resolve("summaries.jsonl")).stream()
            .filter(l -> !l.isBlank())
            .map(WindowSummaryCodec::decode)
            .toList();
    for (String model : List.of("model-a", "model-b", "model-c")) {
      List<EngineView> engine =
          windows.stream()
              .filter(w -> w.model().equals(model) && w.engine() != null)
              .map(WindowSummary::engine)
              .toList();
      assertEquals(
          (long) REQUESTS * (MAX_TOKENS - 1),
          engine.stream().mapToLong(e -> e.tpot() == null ? 0 : e.tpot().count()).sum(),
          model);
      assertEquals(
          REQUESTS, engine.stream().mapToLong(e -> e.ttft() == null ? 0 : e.ttft().count()).sum());
      assertEquals(0, engine.stream().mapToLong(EngineView::failedScrapes).sum(), model);
    }
    String html = Files.readString(outcome.report());
    for (String png :
        List.of(Report.TPOT_PNG, Report.TTFT_PNG, Report.ERROR_RATE_PNG, Report.TOKENS_PNG)) {
      Path chart = out.resolve(png);
      assertTrue(Files.size(chart) > 1_000, png);
      assertEquals(Report.WIDTH_PX, ImageIO.read(chart.toFile()).getWidth(), png);
      assertTrue(html.contains(png), "report.html references " + png);
    }
    // How close the medians come to the profiles is timing, measured by the benchmarks (B2,
    // simulator fidelity), never asserted here.
  }

  private static Map<String, String> overrides(String simulatorUrl) {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("base_url", simulatorUrl);
    o.put("models", "model-a,model-b,model-c");
    o.put("concurrency", "10");
    o.put("total_requests", Integer.toString(REQUESTS));
    o.put("max_tokens", Integer.toString(MAX_TOKENS));
    o.put("prompt", "Write a short story about a robot learning to paint.");
    o.put("api_key", "demo");
    o.put("engine_metrics", URI.create(simulatorUrl).resolve("/metrics").toString()); // as the demo
    // the counts below are the run's own requests: no warm-up before them
    o.put("warmup", "0");
    return o;
  }
}
