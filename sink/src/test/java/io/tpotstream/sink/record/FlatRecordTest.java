package io.tpotstream.sink.record;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.TestWindows;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlatRecordTest {
  static WindowSummary knownWindow() {
    return TestWindows.known("model-a", Map.of("concurrency", "5", "target", "x"), 1);
  }

  /** The 40 engine columns' cells of a summary without an engine section. */
  private static final List<String> NO_ENGINE = Collections.nCopies(40, "");

  /**
   * The cells before the four prompt-cache columns and the engine's, which come last (empty here).
   */
  private static List<String> beforeTheCache(FlatRecord record) {
    List<String> cells = record.cells(List.of());
    assertEquals(NO_ENGINE, cells.subList(cells.size() - 40, cells.size()));
    cells = cells.subList(0, cells.size() - 40);
    assertEquals(List.of("", "", "", ""), cells.subList(cells.size() - 4, cells.size()));
    return cells.subList(0, cells.size() - 4);
  }

  private static List<String> concat(List<String> first, List<String> then) {
    List<String> all = new ArrayList<>(first);
    all.addAll(then);
    return all;
  }

  @Test
  void columnsFollowTheDesignOrderWithLabelsAfterModel() {
    assertEquals(
        List.of(
            "window_start",
            "window_end",
            "ts",
            "series",
            "model",
            "label_concurrency",
            "label_target",
            "tpot_count",
            "tpot_mean_ms",
            "tpot_p50_ms",
            "tpot_p90_ms",
            "tpot_p99_ms",
            "tpot_p99_9_ms",
            "tpot_p99_99_ms",
            "tpot_max_ms",
            "ttft_p50_ms",
            "ttft_p90_ms",
            "ttft_p99_ms",
            "ttft_max_ms",
            "request_tpot_p50_ms",
            "request_tpot_p90_ms",
            "request_tpot_p99_ms",
            "request_tpot_max_ms",
            "e2e_p50_ms",
            "e2e_p90_ms",
            "e2e_p99_ms",
            "e2e_max_ms",
            "requests_started",
            "requests_completed",
            "requests_failed",
            "error_rate",
            "output_tokens",
            "tokens_per_s",
            "late_samples",
            "client_pause_max_ms",
            "client_lag_max_ms",
            "coalesced_gaps",
            "client_suspect",
            "client_touched_gaps",
            "client_touched_tail_share",
            "tpot_p99_without_client_ms",
            "tpot_p99_9_without_client_ms",
            "tpot_max_without_client_ms",
            "warmup_requests",
            "slo_met",
            "slo_missed",
            "goodput",
            "cache_requests",
            "cache_prompt_tokens",
            "cached_tokens",
            "cache_hit_rate",
            "engine_scrapes",
            "engine_failed_scrapes",
            "engine_missing",
            "engine_tpot_p50_lo_ms",
            "engine_tpot_p50_hi_ms",
            "engine_tpot_p99_lo_ms",
            "engine_tpot_p99_hi_ms",
            "engine_tpot_p99_9_lo_ms",
            "engine_tpot_p99_9_hi_ms",
            "engine_ttft_p50_lo_ms",
            "engine_ttft_p50_hi_ms",
            "engine_ttft_p99_lo_ms",
            "engine_ttft_p99_hi_ms",
            "engine_ttft_p99_9_lo_ms",
            "engine_ttft_p99_9_hi_ms",
            "engine_e2e_p50_lo_ms",
            "engine_e2e_p50_hi_ms",
            "engine_e2e_p99_lo_ms",
            "engine_e2e_p99_hi_ms",
            "engine_e2e_p99_9_lo_ms",
            "engine_e2e_p99_9_hi_ms",
            "engine_running_max",
            "engine_running_mean",
            "engine_waiting_max",
            "engine_waiting_mean",
            "engine_kv_cache_max",
            "engine_kv_cache_mean",
            "engine_prefix_cache_hit_ratio",
            "outside_engine_tpot_p50_lo_ms",
            "outside_engine_tpot_p50_hi_ms",
            "outside_engine_tpot_p99_lo_ms",
            "outside_engine_tpot_p99_hi_ms",
            "outside_engine_tpot_p99_9_lo_ms",
            "outside_engine_tpot_p99_9_hi_ms",
            "outside_engine_ttft_p50_lo_ms",
            "outside_engine_ttft_p50_hi_ms",
            "outside_engine_ttft_p99_lo_ms",
            "outside_engine_ttft_p99_hi_ms",
            "outside_engine_ttft_p99_9_lo_ms",
            "outside_engine_ttft_p99_9_hi_ms"),
        FlatRecord.columns(List.of("concurrency", "target")));
  }

  @Test
  void cellsCarryTheSummaryValuesInMs() {
    FlatRecord record = FlatRecord.of(knownWindow());

    assertEquals(
        concat(
            List.of(
                "2026-01-01T00:00:10Z",
                "2026-01-01T00:00:20Z",
                "1767225620000",
                "model-a{concurrency=5,target=x}",
                "model-a",
                "5",
                "x",
                "100",
                "0.505",
                "0.500",
                "0.900",
                "0.990",
                "1.000",
                "1.000",
                "1.000",
                "1.200",
                "2.000",
                "2.000",
                "2.000",
                "0.600",
                "0.800",
                "0.800",
                "0.800",
                "1.500",
                "2.040",
                "2.040",
                "2.040",
                "5",
                "4",
                "1",
                "0.2000",
                "104",
                "10.400",
                "2",
                "",
                "0.250",
                "3",
                "false",
                "0",
                "0",
                "",
                "",
                "",
                "1",
                "",
                "",
                "",
                "3",
                "4500",
                "2700",
                "0.6000"),
            NO_ENGINE),
        record.cells(List.of("concurrency", "target")));
  }

  @Test
  void jsonHasTheSameFieldsInTheSameOrder() {
    String json = new String(FlatRecord.of(knownWindow()).toJson(), StandardCharsets.UTF_8);

    assertEquals(
        "{\"window_start\":\"2026-01-01T00:00:10Z\",\"window_end\":\"2026-01-01T00:00:20Z\","
            + "\"ts\":1767225620000,\"series\":\"model-a{concurrency=5,target=x}\","
            + "\"model\":\"model-a\",\"label_concurrency\":\"5\",\"label_target\":\"x\","
            + "\"tpot_count\":100,\"tpot_mean_ms\":0.505,\"tpot_p50_ms\":0.500,"
            + "\"tpot_p90_ms\":0.900,\"tpot_p99_ms\":0.990,\"tpot_p99_9_ms\":1.000,"
            + "\"tpot_p99_99_ms\":1.000,\"tpot_max_ms\":1.000,\"ttft_p50_ms\":1.200,"
            + "\"ttft_p90_ms\":2.000,\"ttft_p99_ms\":2.000,\"ttft_max_ms\":2.000,"
            + "\"request_tpot_p50_ms\":0.600,\"request_tpot_p90_ms\":0.800,"
            + "\"request_tpot_p99_ms\":0.800,\"request_tpot_max_ms\":0.800,"
            + "\"e2e_p50_ms\":1.500,\"e2e_p90_ms\":2.040,\"e2e_p99_ms\":2.040,"
            + "\"e2e_max_ms\":2.040,"
            + "\"requests_started\":5,\"requests_completed\":4,\"requests_failed\":1,"
            + "\"error_rate\":0.2000,\"output_tokens\":104,\"tokens_per_s\":10.400,"
            + "\"late_samples\":2,\"client_lag_max_ms\":0.250,\"coalesced_gaps\":3,"
            + "\"client_suspect\":false,\"client_touched_gaps\":0,"
            + "\"client_touched_tail_share\":0,\"warmup_requests\":1,"
            + "\"cache_requests\":3,\"cache_prompt_tokens\":4500,\"cached_tokens\":2700,"
            + "\"cache_hit_rate\":0.6000}",
        json);
  }

  @Test
  void emptyStatisticsAreEmptyCellsAndAbsentJsonFields() {
    WindowStats stats = new WindowStats();
    stats.started(1);
    stats.failed("timeout_first_token", 1);
    FlatRecord record = FlatRecord.of(TestWindows.of("model-b", Map.of(), 0, stats));

    assertEquals(
        concat(
            List.of(
                "2026-01-01T00:00:00Z",
                "2026-01-01T00:00:10Z",
                "1767225610000",
                "model-b",
                "model-b",
                "",
                "0",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "1",
                "0",
                "1",
                "1.0000",
                "0",
                "0.000",
                "0",
                "",
                "",
                "0",
                "",
                "",
                "",
                "",
                "",
                "",
                "0",
                "",
                "",
                "",
                "",
                "",
                "",
                ""),
            NO_ENGINE),
        record.cells(List.of("concurrency")));
    assertEquals(
        "{\"window_start\":\"2026-01-01T00:00:00Z\",\"window_end\":\"2026-01-01T00:00:10Z\","
            + "\"ts\":1767225610000,\"series\":\"model-b\",\"model\":\"model-b\","
            + "\"tpot_count\":0,\"requests_started\":1,\"requests_completed\":0,"
            + "\"requests_failed\":1,\"error_rate\":1.0000,\"output_tokens\":0,"
            + "\"tokens_per_s\":0.000,\"late_samples\":0,\"coalesced_gaps\":0,"
            + "\"warmup_requests\":0}",
        new String(record.toJson(), StandardCharsets.UTF_8));
  }

  @Test
  void clientHealthColumnsComeLastAndALateTickThatTouchedNoGapIsNotSuspect() {
    WindowStats stats = new WindowStats();
    stats.clientPause(1_234);
    stats.clientLag(800);
    stats.coalescedGaps(7);
    FlatRecord record = FlatRecord.of(TestWindows.of("m", Map.of(), 0, stats));

    List<String> cells = beforeTheCache(record);
    assertEquals(
        List.of("1.234", "0.800", "7", "false", "0", "0", "", "", "", "0", "", "", ""),
        cells.subList(cells.size() - 13, cells.size()));
    String json = new String(record.toJson(), StandardCharsets.UTF_8);
    assertEquals(
        true,
        json.endsWith(
            "\"late_samples\":0,\"client_pause_max_ms\":1.234,\"client_lag_max_ms\":0.800,"
                + "\"coalesced_gaps\":7,\"client_suspect\":false,\"client_touched_gaps\":0,"
                + "\"client_touched_tail_share\":0,\"warmup_requests\":0}"),
        json);
  }

  @Test
  void touchedGapsInTheTailMakeTheWindowSuspectAndGiveTheTpotWithoutThem() {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(20_000, 1_000);
    stats.tpot.recordMicros(30_000, 10);
    stats.clientTouched(30_000, 10_000, 10);
    stats.clientLag(12_000);
    FlatRecord record = FlatRecord.of(TestWindows.of("m", Map.of(), 0, stats));

    List<String> cells = beforeTheCache(record);
    assertEquals(
        List.of("true", "10", "0.0099", "20.015", "20.015", "20.015", "0"),
        cells.subList(cells.size() - 10, cells.size() - 3));
    String json = new String(record.toJson(), StandardCharsets.UTF_8);
    assertEquals(
        true,
        json.endsWith(
            "\"client_suspect\":true,\"client_touched_gaps\":10,"
                + "\"client_touched_tail_share\":0.0099,\"tpot_p99_without_client_ms\":20.015,"
                + "\"tpot_p99_9_without_client_ms\":20.015,"
                + "\"tpot_max_without_client_ms\":20.015,\"warmup_requests\":0}"),
        json);
  }

  @Test
  void sloColumnsCarryTheWindowsVerdictMissedObjectivesAndGoodput() {
    WindowStats stats = new WindowStats();
    stats.tpot.recordMicros(80_000, 10);
    stats.completed(4, false);
    stats.failed("http_500", 1);
    stats.good(3);
    FlatRecord record =
        FlatRecord.of(
            stats.toSummary(
                "m",
                "m",
                Map.of(),
                0,
                10_000,
                WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US,
                SloSpec.parse("tpot_p99=50ms,error_rate=10%,ttft_p99=1s", "ttft=1s")));
    List<String> cells = beforeTheCache(record);
    // the window has no TTFT sample: ttft_p99 had no data, which is missed too
    assertEquals(
        List.of("false", "tpot_p99;error_rate;ttft_p99:no_data", "0.6000"),
        cells.subList(cells.size() - 3, cells.size()));
    String json = new String(record.toJson(), StandardCharsets.UTF_8);
    assertEquals(
        true,
        json.endsWith(
            "\"slo_met\":false,\"slo_missed\":\"tpot_p99;error_rate;ttft_p99:no_data\","
                + "\"goodput\":0.6000}"),
        json);
  }

  @Test
  void aWindowWhereEveryRequestFailedMissesItsTpotObjectiveWithNoData() {
    WindowStats stats = new WindowStats();
    stats.started(6);
    stats.failed("http_401", 6);
    FlatRecord record =
        FlatRecord.of(
            stats.toSummary(
                "m",
                "m",
                Map.of(),
                0,
                10_000,
                WindowStats.DEFAULT_CLIENT_LAG_THRESHOLD_US,
                SloSpec.parse("tpot_p99=0.001ms,error_rate=100%", null)));
    List<String> cells = beforeTheCache(record);
    assertEquals(
        List.of("false", "tpot_p99:no_data", ""), cells.subList(cells.size() - 3, cells.size()));
    String json = new String(record.toJson(), StandardCharsets.UTF_8);
    assertEquals(
        true,
        json.endsWith(
            "\"requests_failed\":6,\"error_rate\":1.0000,\"output_tokens\":0,\"tokens_per_s\":0.000,"
                + "\"late_samples\":0,\"coalesced_gaps\":0,\"warmup_requests\":0,\"slo_met\":false,"
                + "\"slo_missed\":\"tpot_p99:no_data\"}"),
        json);
  }

  @Test
  void engineColumnsCarryTheEnginesIntervalsAndTheTimeAddedOutsideIt() {
    FlatRecord record =
        FlatRecord.of(TestWindows.knownWithEngine("model-a", Map.of("concurrency", "5"), 1));

    List<String> cells = record.cells(List.of("concurrency"));
    assertEquals(
        List.of(
            // scrapes, failed, the metrics not published
            "2",
            "1",
            "queue;waiting",
            // engine TPOT p50, p99, p99.9 (lo, hi): p99.9 in the +Inf bucket
            "0.250",
            "0.500",
            "0.500",
            "1.000",
            "1.000",
            "",
            // engine TTFT
            "0.500",
            "1.000",
            "1.000",
            "2.500",
            "1.000",
            "2.500",
            // engine E2E
            "1.000",
            "2.500",
            "1.000",
            "2.500",
            "1.000",
            "2.500",
            // running, waiting (not published), KV cache: max, mean
            "3",
            "2.5",
            "",
            "",
            "0.12",
            "0.1",
            "0.5000",
            // outside the engine, TPOT: the client's 0.500, 0.990, 1.000 ms minus the intervals
            "0.000",
            "0.250",
            "-0.010",
            "0.490",
            "",
            "0.000",
            // outside the engine, TTFT: the client's 1.200, 2.000, 2.000 ms
            "0.200",
            "0.700",
            "-0.500",
            "1.000",
            "-0.500",
            "1.000"),
        cells.subList(cells.size() - 40, cells.size()));
    String json = new String(record.toJson(), StandardCharsets.UTF_8);
    assertEquals(
        true,
        json.endsWith(
            "\"cache_hit_rate\":0.6000,\"engine_scrapes\":2,\"engine_failed_scrapes\":1,"
                + "\"engine_missing\":\"queue;waiting\","
                + "\"engine_tpot_p50_lo_ms\":0.250,\"engine_tpot_p50_hi_ms\":0.500,"
                + "\"engine_tpot_p99_lo_ms\":0.500,\"engine_tpot_p99_hi_ms\":1.000,"
                + "\"engine_tpot_p99_9_lo_ms\":1.000,"
                + "\"engine_ttft_p50_lo_ms\":0.500,\"engine_ttft_p50_hi_ms\":1.000,"
                + "\"engine_ttft_p99_lo_ms\":1.000,\"engine_ttft_p99_hi_ms\":2.500,"
                + "\"engine_ttft_p99_9_lo_ms\":1.000,\"engine_ttft_p99_9_hi_ms\":2.500,"
                + "\"engine_e2e_p50_lo_ms\":1.000,\"engine_e2e_p50_hi_ms\":2.500,"
                + "\"engine_e2e_p99_lo_ms\":1.000,\"engine_e2e_p99_hi_ms\":2.500,"
                + "\"engine_e2e_p99_9_lo_ms\":1.000,\"engine_e2e_p99_9_hi_ms\":2.500,"
                + "\"engine_running_max\":3,\"engine_running_mean\":2.5,"
                + "\"engine_kv_cache_max\":0.12,\"engine_kv_cache_mean\":0.1,"
                + "\"engine_prefix_cache_hit_ratio\":0.5000,"
                + "\"outside_engine_tpot_p50_lo_ms\":0.000,\"outside_engine_tpot_p50_hi_ms\":0.250,"
                + "\"outside_engine_tpot_p99_lo_ms\":-0.010,\"outside_engine_tpot_p99_hi_ms\":0.490,"
                + "\"outside_engine_tpot_p99_9_hi_ms\":0.000,"
                + "\"outside_engine_ttft_p50_lo_ms\":0.200,\"outside_engine_ttft_p50_hi_ms\":0.700,"
                + "\"outside_engine_ttft_p99_lo_ms\":-0.500,\"outside_engine_ttft_p99_hi_ms\":1.000,"
                + "\"outside_engine_ttft_p99_9_lo_ms\":-0.500,"
                + "\"outside_engine_ttft_p99_9_hi_ms\":1.000}"),
        json);
  }

  @Test
  void aWindowWhoseScrapesAllFailedHasItsCountsAndNothingElse() {
    FlatRecord record =
        FlatRecord.of(
            TestWindows.withEngine(
                TestWindows.of("m", Map.of(), 0, new WindowStats()), TestWindows.failedEngine(2)));

    List<String> cells = record.cells(List.of());
    List<String> expected = new ArrayList<>(List.of("0", "2"));
    expected.addAll(Collections.nCopies(38, ""));
    assertEquals(expected, cells.subList(cells.size() - 40, cells.size()));
    String json = new String(record.toJson(), StandardCharsets.UTF_8);
    assertEquals(
        true,
        json.endsWith("\"warmup_requests\":0,\"engine_scrapes\":0,\"engine_failed_scrapes\":2}"),
        json);
  }
}
