package io.tpotstream.sink.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tpotstream.common.Json;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComparisonTest {

  /** Ten windows of {@code series}: 99 gaps of {@code gapUs} and one of 3 × that; TTFT 100 ms. */
  private static RunData run(String source, String series, long gapUs) {
    RunData run = new RunData(source, RunData.Kind.SUMMARIES);
    for (int w = 0; w < 10; w++) {
      WindowStats stats = new WindowStats();
      stats.tpot.recordMicros(gapUs, 99);
      stats.tpot.recordMicros(3 * gapUs);
      stats.ttft.recordMicros(100_000 + w);
      stats.completed(1, false);
      WindowSummary s = stats.toSummary(series, "m", Map.of(), w * 10_000L, (w + 1) * 10_000L);
      run.addWindow(s);
      run.addWindow(s); // a repeated window counts once
    }
    return run;
  }

  private static CompareResult.StatComparison stat(
      CompareResult r, String series, String metric, String stat) {
    return r.series().stream()
        .filter(s -> s.series().equals(series))
        .flatMap(s -> s.stats().stream())
        .filter(c -> c.metric().equals(metric) && c.stat().equals(stat))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void aSlowerRunIsBeyondNoiseAndAnEqualOneIsNot() {
    CompareResult r =
        Comparison.compare(
            run("a.jsonl", "m", 1_000), run("b.jsonl", "m", 2_000), Comparison.Settings.defaults());
    CompareResult.StatComparison p50 = stat(r, "m", "tpot", "p50");
    assertEquals(new BigDecimal("1.000"), p50.aMs());
    assertEquals(new BigDecimal("2.000"), p50.bMs());
    assertEquals(new BigDecimal("1.000"), p50.diffMs());
    assertEquals(new BigDecimal("100.0"), p50.changePercent());
    assertEquals(new BigDecimal("1.000"), p50.lowMs());
    assertEquals(new BigDecimal("1.000"), p50.highMs());
    assertTrue(p50.beyondNoise());
    CompareResult.StatComparison ttft = stat(r, "m", "ttft", "p50");
    assertEquals(new BigDecimal("0.000"), ttft.diffMs());
    assertFalse(ttft.beyondNoise(), "the same TTFTs: no difference");
    assertEquals(10, r.a().windows());
    assertEquals(
        "whole-run percentiles from merged histograms, bootstrap over windows", r.method());

    String table = CompareTable.format(r);
    assertTrue(
        table
            .lines()
            .anyMatch(
                l ->
                    l.matches(
                        "m\\s+TPOT\\s+p50\\s+1\\.000\\s+2\\.000\\s+\\+1\\.000\\s+\\+100\\.0%\\s+"
                            + "\\[\\+1\\.000, \\+1\\.000\\]\\s+yes")),
        table);
    assertTrue(table.startsWith("A: a.jsonl (summaries, 10 windows, 1 series)\nB: b.jsonl"), table);
    String html = CompareHtml.render(r);
    assertTrue(
        html.contains("<td>TPOT</td><td>p50</td><td>1.000</td><td>2.000</td><td>+1.000</td>"));
    assertEquals(2, CompareHtml.charts(r).charts().size(), "TPOT and TTFT curves");
    assertTrue(html.contains("\"title\":\"m: TPOT percentile curves, A and B\",\"x\":\"nines\""));
  }

  @Test
  void seriesInOneRunOnlyAreNamedAndTheJsonCarriesTheCurves() throws Exception {
    RunData a = run("a", "m", 1_000);
    RunData b = run("b", "m", 1_000);
    run("x", "other", 5).seriesNames(); // unrelated
    RunData bWithMore = run("b", "extra", 1_000);
    CompareResult r = Comparison.compare(a, bWithMore, Comparison.Settings.defaults());
    assertEquals("a", r.series().get(1).onlyIn());
    assertEquals("extra", r.series().get(0).series());
    assertEquals("b", r.series().get(0).onlyIn());
    assertTrue(CompareTable.format(r).contains("only in A: m\nonly in B: extra\n"));
    String json =
        Json.MAPPER.writeValueAsString(Comparison.compare(a, b, Comparison.Settings.defaults()));
    assertTrue(json.contains("\"curves\":{\"tpot\":{\"a\":[[0.0,1.000],"), json);
    assertTrue(json.contains("[100.0,3.001]]"), json);
  }

  @Test
  void aCsvSideComparesMediansOfWindowPercentiles() {
    RunData csv = new RunData("a.csv", RunData.Kind.CSV);
    for (int w = 0; w < 5; w++) {
      Map<String, String> row = new LinkedHashMap<>();
      row.put("ts", Long.toString((w + 1) * 10_000L));
      row.put("series", "m");
      row.put("tpot_p50_ms", "1.000");
      row.put("tpot_p90_ms", "1.000");
      row.put("tpot_p99_ms", w < 3 ? "2.000" : "9.000");
      row.put("tpot_p99_9_ms", "");
      row.put("ttft_p50_ms", "100.000");
      csv.addCsvRow(row);
    }
    CompareResult r = Comparison.compare(csv, run("b", "m", 1_000), Comparison.Settings.defaults());
    assertTrue(r.method().startsWith("median over windows of each window's percentile"));
    CompareResult.StatComparison p99 = stat(r, "m", "tpot", "p99");
    assertEquals(new BigDecimal("2.000"), p99.aMs(), "the median of 2, 2, 2, 9, 9");
    assertEquals(new BigDecimal("1.000"), p99.bMs());
    CompareResult.StatComparison p999 = stat(r, "m", "tpot", "p99.9");
    assertNull(p999.aMs(), "the CSV has no p99.9 values");
    assertNull(p999.beyondNoise());
    assertEquals(List.of("m"), r.a().series());
  }

  /**
   * {@code dataWindows} windows of 99 gaps of {@code gapUs} and one of 3 × that, after {@code
   * warmupWindows} windows that held only warm-up requests (no TPOT or TTFT sample), as a run with
   * the default warm-up begins.
   */
  private static RunData withWarmup(String source, long gapUs, int warmupWindows, int dataWindows) {
    RunData run = new RunData(source, RunData.Kind.SUMMARIES);
    for (int w = 0; w < warmupWindows + dataWindows; w++) {
      WindowStats stats = new WindowStats();
      if (w < warmupWindows) {
        stats.warmupRequests(10);
      } else {
        stats.tpot.recordMicros(gapUs + w, 99);
        stats.tpot.recordMicros(3 * gapUs);
        stats.ttft.recordMicros(100_000 + w);
        stats.completed(1, false);
      }
      run.addWindow(stats.toSummary("m", "m", Map.of(), w * 10_000L, (w + 1) * 10_000L));
    }
    return run;
  }

  @Test
  void windowsWithoutSamplesDoNotCountSoOneDataWindowBesideWarmupWindowsGetsNoVerdict() {
    CompareResult r =
        Comparison.compare(
            withWarmup("a.jsonl", 1_000, 3, 1),
            withWarmup("b.jsonl", 2_000, 3, 5),
            Comparison.Settings.defaults());

    CompareResult.StatComparison p50 = stat(r, "m", "tpot", "p50");
    assertEquals(new BigDecimal("1.003"), p50.aMs());
    assertEquals(new BigDecimal("2.005"), p50.bMs());
    assertNull(p50.lowMs());
    assertNull(p50.beyondNoise(), "A has one data window beside three warm-up windows");
    assertNull(stat(r, "m", "ttft", "p50").beyondNoise());
    assertEquals(4, r.a().windows(), "every window is still read and counted");
    assertTrue(
        CompareTable.format(r)
            .lines()
            .anyMatch(
                l ->
                    l.matches(
                        "m\\s+TPOT\\s+p50\\s+1\\.003\\s+2\\.005\\s+\\+1\\.002\\s+\\+99\\.9%\\s+-"
                            + "\\s+n/a \\(too few windows\\)")),
        CompareTable.format(r));

    CompareResult two =
        Comparison.compare(
            withWarmup("a.jsonl", 1_000, 3, 2),
            withWarmup("b.jsonl", 2_000, 3, 2),
            Comparison.Settings.defaults());
    assertTrue(stat(two, "m", "tpot", "p50").beyondNoise(), "two data windows a side suffice");
  }
}
