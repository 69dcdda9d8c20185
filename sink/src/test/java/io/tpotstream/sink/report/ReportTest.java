package io.tpotstream.sink.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.sink.file.JsonlFile;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  private static final List<String> MODELS = List.of("model-a", "model-b");
  private static final int WINDOWS = 6;

  @TempDir Path dir;

  /** Every TPOT and TTFT sample of each series, recorded straight into the statistics core. */
  private final Map<String, LatencyHistogram> allTpot =
      Map.of("model-a", new LatencyHistogram(), "model-b", new LatencyHistogram());

  private final Map<String, LatencyHistogram> allTtft =
      Map.of("model-a", new LatencyHistogram(), "model-b", new LatencyHistogram());
  private final List<WindowSummary> summaries = new ArrayList<>();

  /**
   * Six windows per model; the third window of each has a burst of 200-400 ms stalls, so that the
   * whole-run p99 is far from the mean of the windows' p99s.
   */
  @BeforeEach
  void windows() {
    Random random = new Random(42);
    for (String model : MODELS) {
      for (int w = 0; w < WINDOWS; w++) {
        WindowStats stats = new WindowStats();
        int samples = 500 + random.nextInt(500);
        for (int i = 0; i < samples; i++) {
          long micros =
              w == 2 && i % 10 == 0
                  ? 200_000 + random.nextInt(200_000)
                  : 1_000 + random.nextInt(3_000);
          stats.tpot.recordMicros(micros);
          allTpot.get(model).recordMicros(micros);
        }
        for (int i = 0; i < 8; i++) {
          long micros = 150_000 + random.nextInt(400_000);
          stats.ttft.recordMicros(micros);
          allTtft.get(model).recordMicros(micros);
        }
        stats.started(10);
        stats.completed(9, false);
        stats.failed("http_5xx", 1);
        stats.outputTokens(samples + 8);
        if (model.equals("model-a")) {
          stats.promptCache(2, 1_000 + 100 * w, 250 * w); // hit rates 0, 0.23, 0.42, … 0.83
        }
        summaries.add(TestWindows.of(model, Map.of(), w, stats));
      }
    }
  }

  private ReportModel modelFromJsonl() throws IOException {
    Path jsonl = dir.resolve("summaries.jsonl");
    try (JsonlFile file = JsonlFile.open(jsonl, s -> {})) {
      summaries.forEach(file::append);
      file.sync();
    }
    return ReportModel.fromJsonl(jsonl);
  }

  @Test
  void wholeRunPercentilesEqualTheStatisticsCoreOverAllSamples() throws IOException {
    ReportModel model = modelFromJsonl();

    assertEquals(MODELS, model.seriesNames());
    for (String series : MODELS) {
      WindowSummary run = model.wholeRun(series);
      assertEquals(allTpot.get(series).summary(), run.tpot());
      assertEquals(allTtft.get(series).summary(), run.ttft());
      assertEquals(new BigDecimal("0.1000"), run.requests().errorRate());
      assertEquals(TestWindows.startOf(0), run.windowStartMs());
      assertEquals(TestWindows.startOf(WINDOWS), run.windowEndMs());
      BigDecimal meanOfWindowP99s =
          summaries.stream()
              .filter(s -> s.series().equals(series))
              .map(s -> s.tpot().p99Ms())
              .reduce(BigDecimal.ZERO, BigDecimal::add)
              .divide(BigDecimal.valueOf(WINDOWS), 3, RoundingMode.HALF_EVEN);
      assertNotEquals(meanOfWindowP99s, run.tpot().p99Ms(), "averaged percentiles would differ");
    }
  }

  @Test
  void theWholeRunHitRateAddsUpTheWindowsTokensAndTheTableShowsIt() throws IOException {
    ReportModel model = modelFromJsonl();

    // 7,500 prompt tokens, 3,750 cached: 0.5, where the windows' rates average 0.46
    assertEquals(
        new PromptCache(12, 7_500, 3_750, new BigDecimal("0.5000")),
        model.wholeRun("model-a").promptCache());
    assertNull(model.wholeRun("model-b").promptCache());
    Path out = dir.resolve("report");
    Report.write(model, out, false);
    String html = Files.readString(out.resolve(Report.HTML));
    assertTrue(html.contains("<th>prefix cache hit rate (requests that reported it)</th>"));
    assertTrue(html.contains("<td>50.00% (12)</td></tr>"), html);
  }

  @Test
  void aWindowAddedTwiceCountsOnce() throws IOException {
    ReportModel model = modelFromJsonl();

    assertFalse(model.add(summaries.get(0)));
    assertEquals(allTpot.get("model-a").summary(), model.wholeRun("model-a").tpot());
    assertEquals(MODELS.size() * WINDOWS, model.windows());
  }

  @Test
  void writesPngsOfTheChartSizeAndAnHtmlThatDrawsTheChartsAndLinksThem() throws IOException {
    Path out = dir.resolve("report");
    List<Path> written = Report.write(modelFromJsonl(), out, false);

    List<String> pngs =
        List.of(Report.TPOT_PNG, Report.TTFT_PNG, Report.ERROR_RATE_PNG, Report.TOKENS_PNG);
    assertEquals(
        List.of(
            out.resolve(pngs.get(0)),
            out.resolve(pngs.get(1)),
            out.resolve(pngs.get(2)),
            out.resolve(pngs.get(3)),
            out.resolve(Report.HTML)),
        written);
    String html = Files.readString(out.resolve(Report.HTML));
    for (String png : pngs) {
      BufferedImage image = ImageIO.read(out.resolve(png).toFile());
      assertNotNull(image, png + " is a PNG");
      assertEquals(1200, image.getWidth(), png);
      assertEquals(600, image.getHeight(), png);
      assertTrue(html.contains("<a href=\"" + png + "\" title="), "links " + png);
    }
    assertFalse(html.contains("data:image/png"), "the page draws its charts, PNGs only linked");
    assertTrue(html.contains("<script type=\"application/json\" id=\"chart-data\">{\"xs\":"));
    assertTrue(
        html.contains(
            "/*! https://github.com/leeoniya/uPlot (v" + PageTemplate.UPLOT_VERSION + ") */"),
        "uPlot inline");
    assertFalse(html.contains("{{"), "every slot of the template filled");
    for (String series : MODELS) {
      assertTrue(
          html.contains(
              "<td>"
                  + allTpot.get(series).summary().p99Ms().toPlainString()
                  + "</td><td>"
                  + allTpot.get(series).summary().p999Ms().toPlainString()
                  + "</td>"),
          "whole-run p99 and p99.9 of " + series);
    }
    assertFalse(Files.exists(out.resolve(Report.HTML + ".tmp")));
  }

  @Test
  void logScaleChartsRenderToo() throws IOException {
    Path out = dir.resolve("log");
    Report.write(modelFromJsonl(), out, true);

    BufferedImage tpot = ImageIO.read(out.resolve(Report.TPOT_PNG).toFile());
    assertEquals(1200, tpot.getWidth());
    assertEquals(600, tpot.getHeight());
  }
}
