package io.tpotstream.sink.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Json;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.sink.record.EngineRun;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's "Engine vs client": per window the client's TPOT p99 beside the engine's p99 bucket
 * and the time added outside the engine, and over the run the scrapes and the range of those
 * intervals, for the series whose producer scraped an engine.
 */
class EngineReportTest {
  @TempDir Path dir;

  /**
   * model-a: window 1 with {@link TestWindows#knownEngine} (engine TPOT p99 in (0.5, 1] ms, outside
   * [-0.01, 0.49]), window 2 with {@link TestWindows#provenEngine} ((0.25, 0.5], outside [0.49,
   * 0.74]); model-b, window 1, without an engine. The client's TPOT p99 is 0.990 ms in each.
   */
  private static ReportModel model() {
    ReportModel model = new ReportModel();
    model.add(TestWindows.knownWithEngine("model-a", Map.of(), 1));
    model.add(
        TestWindows.withEngine(
            TestWindows.known("model-a", Map.of(), 2), TestWindows.provenEngine()));
    model.add(TestWindows.known("model-b", Map.of(), 1));
    return model;
  }

  @Test
  void theRunAddsUpScrapesAndTakesTheRangeOfTheWindowsIntervals() {
    Map<String, EngineRun> engines = model().engines();

    assertEquals(List.of("model-a"), List.copyOf(engines.keySet()));
    EngineRun a = engines.get("model-a");
    assertEquals(
        List.of(2L, 4L, 1L, 1L),
        List.of(a.windows(), a.scrapes(), a.failedScrapes(), a.tpotOutsideProvenWindows()));
    assertEquals(TestWindows.interval("-0.010", "0.740"), a.tpotP99Outside());
    assertEquals(TestWindows.interval("-0.500", "1.000"), a.ttftP99Outside());
  }

  @Test
  void theChartsPutTheClientsP99BesideTheEnginesBucketAndTheTimeOutside() throws Exception {
    @SuppressWarnings("unchecked")
    Map<String, Object> data =
        Json.MAPPER.readValue(PageTemplate.json(ReportChartData.of(model())), Map.class);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> charts = (List<Map<String, Object>>) data.get("charts");
    Map<String, Object> engine = chart(charts, "engine");
    Map<String, Object> outside = chart(charts, "outside-engine");

    // window ends 00:00:20 and 00:00:30; model-b has no engine and no line
    assertEquals(
        List.of(
            "model-a client p99 #1f77b4 0 [0.99, 0.99]",
            "model-a engine p99 lo #1f77b4 1 [0.5, 0.25]",
            "model-a engine p99 hi #1f77b4 2 [1, 0.5]"),
        lines(engine));
    assertEquals(true, engine.get("log"));
    assertEquals(
        List.of(
            "model-a outside p99 lo #1f77b4 0 [-0.01, 0.49]",
            "model-a outside p99 hi #1f77b4 1 [0.49, 0.74]"),
        lines(outside));
    assertEquals(false, outside.get("log"));
  }

  @Test
  void thePageHasTheEngineTableAndTheEnginePng() throws Exception {
    List<Path> written = Report.write(model(), dir, false);

    assertTrue(written.contains(dir.resolve(Report.ENGINE_PNG)), written.toString());
    BufferedImage png = ImageIO.read(dir.resolve(Report.ENGINE_PNG).toFile());
    assertEquals(List.of(1200, 600), List.of(png.getWidth(), png.getHeight()));
    String page = Files.readString(dir.resolve(Report.HTML));
    assertTrue(
        page.contains(
            "<table id=\"engine\">\n<tr><th>series</th><th>windows with the engine's view</th>"
                + "<th>scrapes</th><th>failed scrapes</th><th>TPOT p99 outside the engine (ms)"
                + "</th><th>TTFT p99 outside the engine (ms)</th><th>windows with TPOT p99"
                + " outside the engine proven (lower bound &gt; 0)</th></tr>\n"
                + "<tr><td class=\"series\">model-a</td><td>2</td><td>4</td><td>1</td>"
                + "<td>[-0.01, 0.74]</td><td>[-0.50, 1.00]</td><td>1</td></tr>\n</table>"),
        page);
    assertTrue(page.contains("<h2>Engine vs client</h2>"));
  }

  @Test
  void withoutAnEngineThereIsNoEngineSectionChartOrPng() throws Exception {
    ReportModel model = new ReportModel();
    model.add(TestWindows.known("model-b", Map.of(), 1));

    List<Path> written = Report.write(model, dir, false);

    assertFalse(Files.exists(dir.resolve(Report.ENGINE_PNG)), written.toString());
    String page = Files.readString(dir.resolve(Report.HTML));
    assertFalse(page.contains("Engine vs client"));
    assertFalse(page.contains("\"outside-engine\""));
  }

  private static Map<String, Object> chart(List<Map<String, Object>> charts, String id) {
    return charts.stream().filter(c -> id.equals(c.get("id"))).findFirst().orElseThrow();
  }

  /** Each line of {@code chart} as "label colour dash values". */
  @SuppressWarnings("unchecked")
  private static List<String> lines(Map<String, Object> chart) {
    return ((List<Map<String, Object>>) chart.get("lines"))
        .stream()
            .map(
                l -> l.get("label") + " " + l.get("color") + " " + l.get("dash") + " " + l.get("v"))
            .toList();
  }
}
