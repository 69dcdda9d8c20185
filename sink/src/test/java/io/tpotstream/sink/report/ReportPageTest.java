package io.tpotstream.sink.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Json;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.sink.TestWindows;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.data.Range;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The interactive page's data: what it holds, how compact it is, and the error-rate axis. */
class ReportPageTest {
  private static final Map<String, String> PNGS = Map.of("tpot.png", "TPOT");

  /** Varied windows: TPOT 1.5-3.5 ms with stalls, TTFT 0.2-2 s, some failures, 100-300 tok/s. */
  private static WindowStats window(Random random) {
    WindowStats stats = new WindowStats();
    for (int i = 0; i < 200; i++) {
      stats.tpot.recordMicros(
          random.nextInt(100) == 0
              ? 50_000 + random.nextInt(100_000)
              : 1_500 + random.nextInt(2_000));
    }
    for (int i = 0; i < 5; i++) {
      stats.ttft.recordMicros(200_000 + random.nextInt(1_800_000));
    }
    int started = 5 + random.nextInt(8);
    int failed = random.nextInt(10) == 0 ? 1 + random.nextInt(2) : 0;
    stats.started(started);
    stats.completed(started - failed, false);
    if (failed > 0) {
      stats.failed("http_5xx", failed);
    }
    stats.outputTokens(1_000 + random.nextInt(2_000));
    return stats;
  }

  private static Map<String, Object> chart(Map<String, Object> data, String id) {
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> charts = (List<Map<String, Object>>) data.get("charts");
    return charts.stream().filter(c -> id.equals(c.get("id"))).findFirst().orElseThrow();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> data(ReportModel model) throws Exception {
    return Json.MAPPER.readValue(PageTemplate.json(ReportChartData.of(model)), Map.class);
  }

  /** Slow: the model decodes each window's histograms, about 1 ms a window, 25,920 windows. */
  @Test
  @Tag("slow")
  void aDayOfTenSecondWindowsOfThreeModelsFitsInOneMegabyte() {
    Random random = new Random(7);
    ReportModel model = new ReportModel();
    for (String name : List.of("model-a", "model-b", "model-c")) {
      for (int w = 0; w < 8_640; w++) {
        model.add(TestWindows.of(name, Map.of(), w, window(random)));
      }
    }
    assertEquals(3 * 8_640, model.windows());

    String page = HtmlReport.render(model, PNGS);

    int bytes = page.getBytes(StandardCharsets.UTF_8).length;
    assertTrue(bytes <= 1_000_000, "report.html of a day × 3 models is " + bytes + " bytes");
    assertTrue(bytes > 600_000, "the data is in the page: " + bytes + " bytes");
  }

  @Test
  void chartsShareOneTimeAxisAndRoundLatenciesToThreeSignificantDigits() throws Exception {
    ReportModel model = new ReportModel();
    WindowStats a = new WindowStats();
    a.tpot.recordMicros(1_234_567);
    a.ttft.recordMicros(12_345);
    a.started(3);
    a.completed(2, false);
    a.failed("http_429", 1);
    a.outputTokens(12_345);
    model.add(TestWindows.of("a", Map.of(), 0, a));
    model.add(TestWindows.of("b", Map.of(), 1, TestWindows.knownTpotAndTtft()));

    Map<String, Object> data = data(model);

    // window ends 00:00:10 and 00:00:20 of 2026-01-01, in s: the start, then the steps
    assertEquals(List.of(Map.of("start", 1_767_225_610, "steps", List.of(10))), data.get("xs"));
    Map<String, Object> tpot = chart(data, "tpot");
    assertEquals(true, tpot.get("log"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> lines = (List<Map<String, Object>>) tpot.get("lines");
    assertEquals(
        List.of("a p50", "a p99", "a p99.9", "b p50", "b p99", "b p99.9"),
        lines.stream().map(l -> l.get("label")).toList());
    // 1,234,567 µs to 3 significant digits: 1230 ms; b's p50 is 0.500 ms
    assertEquals("[1230, null]", String.valueOf(lines.get(0).get("v")));
    assertEquals("[null, 0.5]", String.valueOf(lines.get(3).get("v")));
    assertEquals("#1f77b4", lines.get(0).get("color"));
    assertEquals("#ff7f0e", lines.get(3).get("color"));
    assertEquals(List.of(0, 1, 2), lines.subList(0, 3).stream().map(l -> l.get("dash")).toList());
    Map<String, Object> errors = chart(data, "error-rate");
    assertEquals(false, errors.get("log"));
    assertEquals(5, errors.get("marker"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> errorLines = (List<Map<String, Object>>) errors.get("lines");
    // 1 of 3 finished: 33.33 %; b: 1 of 5
    assertEquals("[33.33, null]", String.valueOf(errorLines.get(0).get("v")));
    assertEquals("[null, 20]", String.valueOf(errorLines.get(1).get("v")));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> tokens =
        (List<Map<String, Object>>) chart(data, "tokens").get("lines");
    assertEquals("[1235, null]", String.valueOf(tokens.get(0).get("v")));
  }

  @Test
  void warmUpWindowsAreLeftOutOfTheCharts() throws Exception {
    ReportModel model = new ReportModel();
    WindowStats warmup = new WindowStats();
    warmup.warmupRequests(12);
    model.add(TestWindows.of("m", Map.of(), 0, warmup));
    model.add(TestWindows.of("m", Map.of(), 1, new WindowStats())); // the warm-up's last tokens
    model.add(TestWindows.of("m", Map.of(), 2, TestWindows.knownTpotAndTtft()));
    model.add(TestWindows.of("m", Map.of(), 3, new WindowStats())); // a gap in the run: kept
    model.add(TestWindows.of("m", Map.of(), 4, TestWindows.knownTpotAndTtft()));

    assertEquals(
        List.of(TestWindows.startOf(3), TestWindows.startOf(4), TestWindows.startOf(5)),
        model.points("m").stream().map(WindowPoint::windowEndMs).toList());
    assertEquals(
        List.of(Map.of("start", 1_767_225_630, "steps", List.of(10, 10))), data(model).get("xs"));
    assertEquals(5, model.windows(), "the whole-run table still counts every window");
  }

  @Test
  void withoutErrorsTheErrorRateAxisOfThePngRunsFromZeroToOnePercent() {
    ReportModel model = new ReportModel();
    WindowStats clean = new WindowStats();
    clean.tpot.recordMicros(1_000, 10);
    clean.started(2);
    clean.completed(2, false);
    model.add(TestWindows.of("m", Map.of(), 0, clean));
    model.add(TestWindows.of("m", Map.of(), 1, clean));

    NumberAxis percent = (NumberAxis) Charts.errorRatePlot(model).getRangeAxis();

    assertEquals(new Range(0, 1), percent.getRange());
  }

  @Test
  void aOneWindowChartHasATimeAxisOfAMinuteAroundItsWindow() {
    ReportModel model = new ReportModel();
    model.add(TestWindows.of("m", Map.of(), 0, TestWindows.knownTpotAndTtft()));

    Range time = Charts.errorRatePlot(model).getDomainAxis().getRange();

    long end = TestWindows.startOf(1);
    assertEquals(new Range(end - 30_000, end + 30_000), time);
  }

  @Test
  void errorsAboveOnePercentGetAnAxisFromZeroToAboveThem() {
    ReportModel model = new ReportModel();
    WindowStats failing = new WindowStats();
    failing.started(4);
    failing.completed(3, false);
    failing.failed("http_5xx", 1);
    model.add(TestWindows.of("m", Map.of(), 0, failing));

    Range range = Charts.errorRatePlot(model).getRangeAxis().getRange();

    assertEquals(0, range.getLowerBound());
    assertTrue(range.getUpperBound() >= 25, range.toString());
  }

  @Test
  void aSeriesNameCannotCloseTheDataScript() {
    ReportModel model = new ReportModel();
    model.add(TestWindows.of("m</script><b>", Map.of(), 0, TestWindows.knownTpotAndTtft()));

    String page = HtmlReport.render(model, PNGS);

    assertFalse(page.contains("m</script>"));
    assertTrue(page.contains("m\\u003c/script>\\u003cb>"), "escaped in the JSON");
    assertTrue(page.contains("m&lt;/script&gt;&lt;b&gt;"), "escaped in the table");
    assertNull(ChartData.ms(null));
  }
}
