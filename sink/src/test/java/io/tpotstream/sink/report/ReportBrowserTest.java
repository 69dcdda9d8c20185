package io.tpotstream.sink.report;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.common.Json;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.sink.TestWindows;
import io.tpotstream.sink.compare.CompareHtml;
import io.tpotstream.sink.compare.CompareResult;
import io.tpotstream.sink.compare.Comparison;
import io.tpotstream.sink.compare.RunData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pages in a real browser: Debian's headless Chromium loads {@code report.html} and {@code
 * compare.html} from disk (no network) and the test reads what the page's script wrote into {@code
 * #chart-status}: the charts uPlot drew, their lines, points and y scales, and every script error.
 * Skipped where {@value #CHROMIUM} is absent ({@code .ci/run} installs it).
 */
@Tag("slow")
class ReportBrowserTest {
  private static final String CHROMIUM = "/usr/bin/chromium";
  private static final Pattern STATUS =
      Pattern.compile("<pre id=\"chart-status\" hidden=\"\">(.*?)</pre>", Pattern.DOTALL);

  @TempDir Path dir;

  @BeforeAll
  static void chromium() {
    assumeTrue(Files.isExecutable(Path.of(CHROMIUM)), CHROMIUM + " is not installed");
    System.setProperty("java.awt.headless", "true");
  }

  /** Two warm-up windows, then 30 windows of two models without errors. */
  private static ReportModel model() {
    ReportModel model = new ReportModel();
    for (String name : List.of("model-a", "model-b")) {
      WindowStats warmup = new WindowStats();
      warmup.warmupRequests(8);
      model.add(TestWindows.of(name, Map.of(), 0, warmup));
      model.add(TestWindows.of(name, Map.of(), 1, new WindowStats()));
      for (int w = 2; w < 32; w++) {
        WindowStats stats = TestWindows.stats(name, Map.of(), w);
        WindowStats clean = new WindowStats();
        clean.tpot.add(stats.tpot);
        clean.ttft.add(stats.ttft);
        clean.started(5);
        clean.completed(5, false);
        clean.outputTokens(205);
        model.add(TestWindows.of(name, Map.of(), w, clean));
      }
    }
    return model;
  }

  /** Loads {@code page} in headless Chromium and returns the page's {@code #chart-status}. */
  /**
   * Chromium's profiles live outside the test's temporary directory: its helper processes can still
   * write there for a moment after the browser exits, and JUnit would then fail to delete the
   * directory. They are removed after each test as far as they can be.
   */
  private final List<Path> profiles = new ArrayList<>();

  private Path profile() throws IOException {
    Path profile = Files.createTempDirectory("tpot-chromium-");
    profiles.add(profile);
    return profile;
  }

  @AfterEach
  void removeProfiles() {
    for (Path profile : profiles) {
      try (Stream<Path> all = Files.walk(profile)) {
        all.sorted(Comparator.reverseOrder())
            .forEach(
                p -> {
                  try {
                    Files.deleteIfExists(p);
                  } catch (IOException e) {
                    // a helper process still writing: left for the system's temporary cleanup
                  }
                });
      } catch (IOException | UncheckedIOException e) {
        // the same
      }
    }
  }

  private JsonNode status(Path page) throws Exception {
    Path profile = profile();
    Process chromium =
        new ProcessBuilder(
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--user-data-dir=" + profile,
                "--virtual-time-budget=5000",
                "--dump-dom",
                page.toUri().toString())
            .redirectError(dir.resolve("chromium.log").toFile())
            .start();
    String dom = new String(chromium.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(chromium.waitFor(2, TimeUnit.MINUTES), "chromium did not exit");
    assertEquals(0, chromium.exitValue(), Files.readString(dir.resolve("chromium.log")));
    Matcher status = STATUS.matcher(dom);
    assertTrue(status.find(), "no #chart-status in the DOM:\n" + dom);
    String json = status.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    return Json.MAPPER.readTree(json);
  }

  private static List<String> summary(JsonNode status) {
    List<String> charts = new ArrayList<>();
    for (JsonNode c : status.get("charts")) {
      charts.add(
          c.get("id").asText()
              + ": "
              + c.get("series").asInt()
              + " lines, "
              + c.get("points").asInt()
              + " points, "
              + c.get("scale").asText());
      assertTrue(c.get("draws").asInt() >= 1, c.get("id") + " was drawn");
    }
    return charts;
  }

  @Test
  void theReportDrawsItsFourChartsWithoutTheWarmUp() throws Exception {
    Report.write(model(), dir, false);

    JsonNode status = status(dir.resolve(Report.HTML));

    assertEquals(0, status.get("errors").size(), status.toString());
    assertEquals(
        List.of(
            "tpot: 6 lines, 30 points, log",
            "ttft: 4 lines, 30 points, log",
            "error-rate: 2 lines, 30 points, linear",
            "tokens: 2 lines, 30 points, linear"),
        summary(status));
    JsonNode errorRate = status.get("charts").get(2);
    assertEquals(0, errorRate.get("yMin").asDouble(), "no errors: the axis starts at 0");
    assertEquals(1, errorRate.get("yMax").asDouble(), "and ends at 1 %");
    JsonNode tokens = status.get("charts").get(3);
    assertEquals(0, tokens.get("yMin").asDouble());
    // 205 tokens in 10 s, and a little headroom above
    assertEquals(20.5 * 1.08, tokens.get("yMax").asDouble(), 1e-9);
  }

  @Test
  void aSweepAddsItsKneeChart() throws Exception {
    ReportModel model = new ReportModel();
    for (String stage : List.of("concurrency-1", "concurrency-4", "concurrency-16")) {
      Map<String, String> labels = Map.of("stage", stage);
      model.add(TestWindows.summary("m", labels, 0));
    }
    Report.write(model, dir, false);

    JsonNode status = status(dir.resolve(Report.HTML));

    assertEquals(0, status.get("errors").size(), status.toString());
    assertEquals("knee: 2 lines, 3 points, linear", summary(status).get(4));
  }

  @Test
  void compareDrawsBothRunsCurvesPerMetricOnALogAxis() throws Exception {
    RunData a = new RunData("a.jsonl", RunData.Kind.SUMMARIES);
    RunData b = new RunData("b.jsonl", RunData.Kind.SUMMARIES);
    for (int w = 0; w < 10; w++) {
      a.addWindow(TestWindows.summary("m", Map.of(), w));
      b.addWindow(TestWindows.summary("m", Map.of("run", "b"), w + 100));
      b.addWindow(TestWindows.summary("m", Map.of(), w + 200));
    }
    CompareResult result = Comparison.compare(a, b, Comparison.Settings.defaults());
    Path page = dir.resolve("compare.html");
    CompareHtml.write(result, page);

    JsonNode status = status(page);

    assertEquals(0, status.get("errors").size(), status.toString());
    List<String> charts = summary(status);
    assertEquals(2, charts.size(), charts.toString());
    for (String chart : charts) {
      assertTrue(chart.matches("c[01]: 2 lines, \\d+ points, log"), chart);
    }
  }

  /** The TPOT chart's legend entry {@code n} (0: the window end). */
  private static String legend(String chart, int n) {
    return "document.querySelectorAll('#chart-" + chart + " .u-series')[" + n + "]";
  }

  private static List<Double> xRanges(DevTools page) throws Exception {
    List<Double> ranges = new ArrayList<>();
    for (JsonNode n :
        page.evaluate(
            "tpotCharts.filter(c => c.chart.x === 'time')"
                + ".flatMap(c => [c.plot.scales.x.min, c.plot.scales.x.max])")) {
      ranges.add(n.asDouble());
    }
    return ranges;
  }

  @Test
  void hoverShowsValuesAClickHidesALineADragZoomsEveryTimeChartAndADoubleClickZoomsOut()
      throws Exception {
    ReportModel model = model();
    Report.write(model, dir, false);
    ChartData data = ReportChartData.of(model);
    Path profile = profile();
    try (DevTools page =
        DevTools.open(CHROMIUM, profile, dir.resolve(Report.HTML).toUri(), 1300, 3000)) {
      // the charts are drawn after the page has loaded: wait for the first one's plot area
      await()
          .ignoreExceptions()
          .until(
              () ->
                  page.evaluate(
                          "document.readyState === 'complete'"
                              + " && document.querySelector('#chart-tpot .u-over') !== null")
                      .asBoolean());
      double[] over = page.box("document.querySelector('#chart-tpot .u-over')");
      double left = over[0];
      double right = over[1];
      double y = over[2];

      // hover: the legend shows the window under the cursor and its values, in every time chart
      page.mouse("mouseMoved", over[3], y, 0);
      int idx = page.evaluate("tpotCharts[0].plot.cursor.idx").asInt();
      assertEquals(
          Instant.ofEpochMilli(TestWindows.startOf(idx + 3))
              .toString()
              .replace("T", " ")
              .replace("Z", " UTC"),
          page.evaluate(legend("tpot", 0) + ".querySelector('.u-value').textContent").asText());
      assertEquals(
          data.charts().get(0).lines().get(1).v().get(idx).toPlainString() + " ms",
          page.evaluate(legend("tpot", 2) + ".querySelector('.u-value').textContent").asText(),
          "model-a p99 at the window hovered");
      assertEquals(idx, page.evaluate("tpotCharts[1].plot.cursor.idx").asInt(), "TTFT follows");

      // a click on a legend entry hides its line, a second click shows it again (the mouse
      // leaves the chart first: the legend's values, and so its layout, go back to "–")
      page.mouse("mouseMoved", 5, 5, 0);
      double[] entry = page.box(legend("tpot", 1) + ".querySelector('.u-label')");
      page.click(entry[3], entry[2], 1);
      assertEquals(false, page.evaluate("tpotCharts[0].plot.series[1].show").asBoolean());
      page.click(entry[3], entry[2], 1);
      assertEquals(true, page.evaluate("tpotCharts[0].plot.series[1].show").asBoolean());

      // a drag zooms into a time range, in every time chart; a double click zooms out again
      List<Double> full = xRanges(page);
      assertEquals(
          List.of(
              TestWindows.startOf(3) / 1000.0,
              TestWindows.startOf(32) / 1000.0,
              TestWindows.startOf(3) / 1000.0,
              TestWindows.startOf(32) / 1000.0,
              TestWindows.startOf(3) / 1000.0,
              TestWindows.startOf(32) / 1000.0,
              TestWindows.startOf(3) / 1000.0,
              TestWindows.startOf(32) / 1000.0),
          full);
      page.drag(left + (right - left) * 0.25, left + (right - left) * 0.5, y);
      List<Double> zoomed = xRanges(page);
      assertTrue(zoomed.get(0) > full.get(0) && zoomed.get(1) < full.get(1), zoomed.toString());
      for (int c = 2; c < zoomed.size(); c += 2) {
        assertEquals(zoomed.subList(0, 2), zoomed.subList(c, c + 2), "every time chart zoomed");
      }
      page.click(over[3], y, 2);
      assertEquals(full, xRanges(page));

      // the log scale's checkbox switches the TPOT axis to linear, from 0
      double[] log = page.box("document.querySelector('#chart-tpot input')");
      page.click(log[3], log[2], 1);
      assertEquals(1, page.evaluate("tpotCharts[0].plot.scales.y.distr").asInt(), "linear");
      assertEquals(0, page.evaluate("tpotCharts[0].plot.scales.y.min").asDouble());
      assertEquals(0, page.evaluate("window.chartErrors.length").asInt());
    }
  }

  @Test
  void aBrokenScriptShowsAsAnError() throws Exception {
    Report.write(model(), dir, false);
    Path page = dir.resolve(Report.HTML);
    String html = Files.readString(page);
    Files.writeString(page, html.replace("uPlot(options(", "uPlot(nothing("));

    JsonNode status = status(page);

    assertEquals(0, status.get("charts").size(), status.toString());
    assertFalse(status.get("errors").isEmpty(), status.toString());
    assertTrue(status.get("errors").get(0).asText().contains("nothing"), status.toString());
  }
}
