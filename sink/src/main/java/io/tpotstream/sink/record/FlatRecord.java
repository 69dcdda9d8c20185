package io.tpotstream.sink.record;

import com.fasterxml.jackson.core.JsonGenerator;
import io.tpotstream.common.Json;
import io.tpotstream.common.engine.EngineView;
import io.tpotstream.common.slo.ObjectiveResult;
import io.tpotstream.common.stats.LatencySummary;
import io.tpotstream.common.summary.ClientTouch;
import io.tpotstream.common.summary.PromptCache;
import io.tpotstream.common.summary.RequestCounts;
import io.tpotstream.common.summary.WindowSummary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The sink's flat record (docs/design.md, "Sink"): one per series and window, the same fields in
 * the CSV header and in {@code tpot.metrics} JSON. Latencies in ms with three decimals, exactly as
 * the summary carries them. A latency field is null when its histogram had no sample in the window:
 * an empty CSV cell, and a field left out of the JSON; so are the client-health fields a producer
 * did not report, and the engine's columns of a window without an engine section ({@code engine},
 * the summary's {@link EngineView}, copied as it is).
 */
public record FlatRecord(
    String windowStart,
    String windowEnd,
    long ts,
    String series,
    String model,
    SortedMap<String, String> labels,
    long tpotCount,
    BigDecimal tpotMeanMs,
    BigDecimal tpotP50Ms,
    BigDecimal tpotP90Ms,
    BigDecimal tpotP99Ms,
    BigDecimal tpotP999Ms,
    BigDecimal tpotP9999Ms,
    BigDecimal tpotMaxMs,
    BigDecimal ttftP50Ms,
    BigDecimal ttftP90Ms,
    BigDecimal ttftP99Ms,
    BigDecimal ttftMaxMs,
    BigDecimal requestTpotP50Ms,
    BigDecimal requestTpotP90Ms,
    BigDecimal requestTpotP99Ms,
    BigDecimal requestTpotMaxMs,
    BigDecimal e2eP50Ms,
    BigDecimal e2eP90Ms,
    BigDecimal e2eP99Ms,
    BigDecimal e2eMaxMs,
    long requestsStarted,
    long requestsCompleted,
    long requestsFailed,
    BigDecimal errorRate,
    long outputTokens,
    BigDecimal tokensPerS,
    long lateSamples,
    BigDecimal clientPauseMaxMs,
    BigDecimal clientLagMaxMs,
    long coalescedGaps,
    Boolean clientSuspect,
    Long clientTouchedGaps,
    BigDecimal clientTouchedTailShare,
    BigDecimal tpotP99WithoutClientMs,
    BigDecimal tpotP999WithoutClientMs,
    BigDecimal tpotMaxWithoutClientMs,
    long warmupRequests,
    Boolean sloMet,
    String sloMissed,
    BigDecimal goodput,
    Long cacheRequests,
    Long cachePromptTokens,
    Long cachedTokens,
    BigDecimal cacheHitRate,
    EngineView engine) {

  /** Columns before the labels. */
  public static final List<String> LEADING_COLUMNS =
      List.of("window_start", "window_end", "ts", "series", "model");

  /** Columns after the labels and how each is read: one list, so CSV and JSON never differ. */
  private static final List<Map.Entry<String, Function<FlatRecord, Object>>> STATS =
      List.of(
          Map.entry("tpot_count", FlatRecord::tpotCount),
          Map.entry("tpot_mean_ms", FlatRecord::tpotMeanMs),
          Map.entry("tpot_p50_ms", FlatRecord::tpotP50Ms),
          Map.entry("tpot_p90_ms", FlatRecord::tpotP90Ms),
          Map.entry("tpot_p99_ms", FlatRecord::tpotP99Ms),
          Map.entry("tpot_p99_9_ms", FlatRecord::tpotP999Ms),
          Map.entry("tpot_p99_99_ms", FlatRecord::tpotP9999Ms),
          Map.entry("tpot_max_ms", FlatRecord::tpotMaxMs),
          Map.entry("ttft_p50_ms", FlatRecord::ttftP50Ms),
          Map.entry("ttft_p90_ms", FlatRecord::ttftP90Ms),
          Map.entry("ttft_p99_ms", FlatRecord::ttftP99Ms),
          Map.entry("ttft_max_ms", FlatRecord::ttftMaxMs),
          Map.entry("request_tpot_p50_ms", FlatRecord::requestTpotP50Ms),
          Map.entry("request_tpot_p90_ms", FlatRecord::requestTpotP90Ms),
          Map.entry("request_tpot_p99_ms", FlatRecord::requestTpotP99Ms),
          Map.entry("request_tpot_max_ms", FlatRecord::requestTpotMaxMs),
          Map.entry("e2e_p50_ms", FlatRecord::e2eP50Ms),
          Map.entry("e2e_p90_ms", FlatRecord::e2eP90Ms),
          Map.entry("e2e_p99_ms", FlatRecord::e2eP99Ms),
          Map.entry("e2e_max_ms", FlatRecord::e2eMaxMs),
          Map.entry("requests_started", FlatRecord::requestsStarted),
          Map.entry("requests_completed", FlatRecord::requestsCompleted),
          Map.entry("requests_failed", FlatRecord::requestsFailed),
          Map.entry("error_rate", FlatRecord::errorRate),
          Map.entry("output_tokens", FlatRecord::outputTokens),
          Map.entry("tokens_per_s", FlatRecord::tokensPerS),
          Map.entry("late_samples", FlatRecord::lateSamples),
          Map.entry("client_pause_max_ms", FlatRecord::clientPauseMaxMs),
          Map.entry("client_lag_max_ms", FlatRecord::clientLagMaxMs),
          Map.entry("coalesced_gaps", FlatRecord::coalescedGaps),
          Map.entry("client_suspect", FlatRecord::clientSuspect),
          Map.entry("client_touched_gaps", FlatRecord::clientTouchedGaps),
          Map.entry("client_touched_tail_share", FlatRecord::clientTouchedTailShare),
          Map.entry("tpot_p99_without_client_ms", FlatRecord::tpotP99WithoutClientMs),
          Map.entry("tpot_p99_9_without_client_ms", FlatRecord::tpotP999WithoutClientMs),
          Map.entry("tpot_max_without_client_ms", FlatRecord::tpotMaxWithoutClientMs),
          Map.entry("warmup_requests", FlatRecord::warmupRequests),
          Map.entry("slo_met", FlatRecord::sloMet),
          Map.entry("slo_missed", FlatRecord::sloMissed),
          Map.entry("goodput", FlatRecord::goodput),
          Map.entry("cache_requests", FlatRecord::cacheRequests),
          Map.entry("cache_prompt_tokens", FlatRecord::cachePromptTokens),
          Map.entry("cached_tokens", FlatRecord::cachedTokens),
          Map.entry("cache_hit_rate", FlatRecord::cacheHitRate));

  /** The engine's columns ({@link EngineView}), after the others: {@link #engineColumns}. */
  private static final List<Map.Entry<String, Function<FlatRecord, Object>>> ENGINE =
      engineColumns();

  /**
   * Columns after the labels: the seed's TPOT table in its order, TTFT, request TPOT and E2E, the
   * request counts, the client's health in the window (its lag's touched gaps, their share of the
   * tail at or above p99, and TPOT p99, p99.9 and max with that lag taken out when there were
   * some), then the SLO's verdict on the window ({@code slo_met}, the missed objectives' names
   * joined by {@code ;}, one with no data as {@code NAME:no_data}, {@code goodput}; empty without
   * {@code --slo}/{@code --goodput}), the prefix cache as the requests reported it, and last the
   * engine's own view of the window ({@link #engineColumns}; empty when no engine was scraped).
   */
  public static final List<String> STAT_COLUMNS =
      Stream.concat(STATS.stream(), ENGINE.stream()).map(Map.Entry::getKey).toList();

  /** Prefix of the one column per grouped label. */
  public static final String LABEL_PREFIX = "label_";

  public FlatRecord {
    labels = labels == null ? new TreeMap<>() : new TreeMap<>(labels);
  }

  /** Flattens a window summary; its values are copied, never recomputed. */
  public static FlatRecord of(WindowSummary s) {
    LatencySummary tpot = orEmpty(s.tpot());
    LatencySummary ttft = orEmpty(s.ttft());
    LatencySummary requestTpot = orEmpty(s.requestTpot());
    LatencySummary e2e = orEmpty(s.e2e());
    RequestCounts requests = s.requests();
    ClientTouch touch = s.clientTouched();
    LatencySummary without =
        touch == null || touch.tpotWithout() == null ? LatencySummary.EMPTY : touch.tpotWithout();
    PromptCache cache = s.promptCache();
    return new FlatRecord(
        s.windowStart(),
        s.windowEnd(),
        s.windowEndMs(),
        s.series(),
        s.model(),
        s.labels(),
        tpot.count(),
        tpot.meanMs(),
        tpot.p50Ms(),
        tpot.p90Ms(),
        tpot.p99Ms(),
        tpot.p999Ms(),
        tpot.p9999Ms(),
        tpot.maxMs(),
        ttft.p50Ms(),
        ttft.p90Ms(),
        ttft.p99Ms(),
        ttft.maxMs(),
        requestTpot.p50Ms(),
        requestTpot.p90Ms(),
        requestTpot.p99Ms(),
        requestTpot.maxMs(),
        e2e.p50Ms(),
        e2e.p90Ms(),
        e2e.p99Ms(),
        e2e.maxMs(),
        requests == null ? 0 : requests.started(),
        requests == null ? 0 : requests.completed(),
        requests == null ? 0 : requests.failed(),
        requests == null ? null : requests.errorRate(),
        s.outputTokens(),
        s.tokensPerSecond(),
        s.lateSamples(),
        s.clientPauseMaxMs(),
        s.clientLagMaxMs(),
        s.coalescedGaps(),
        s.clientSuspect(),
        touch != null ? (Long) touch.gaps() : s.clientSuspect() == null ? null : 0L,
        touch != null ? touch.tailShare() : s.clientSuspect() == null ? null : BigDecimal.ZERO,
        without.p99Ms(),
        without.p999Ms(),
        without.maxMs(),
        s.warmupRequests(),
        s.slo() == null ? null : s.slo().met(),
        s.slo() == null || s.slo().met()
            ? null
            : String.join(";", s.slo().missed().stream().map(ObjectiveResult::missedName).toList()),
        s.slo() == null ? null : s.slo().goodput(),
        cache == null ? null : cache.requests(),
        cache == null ? null : cache.promptTokens(),
        cache == null ? null : cache.cachedTokens(),
        cache == null ? null : cache.hitRate(),
        s.engine());
  }

  /**
   * The engine's columns, each read from the summary's {@link EngineView} as it is (null, an empty
   * cell, when the summary has none): {@code engine_scrapes}, {@code engine_failed_scrapes}, {@code
   * engine_missing} (the metrics some scrape did not find, joined by {@code ;}); for TPOT, TTFT and
   * E2E at p50, p99 and p99.9 the engine histogram's bucket each fell in, {@code
   * engine_<stat>_<p>_lo_ms} and {@code _hi_ms} (hi empty for the {@code +Inf} bucket); {@code
   * engine_running_*}, {@code engine_waiting_*}, {@code engine_kv_cache_*} ({@code max} and {@code
   * mean} over the window's scrapes); {@code engine_prefix_cache_hit_ratio}; and the time added
   * outside the engine, {@code outside_engine_<tpot|ttft>_<p>_lo_ms} and {@code _hi_ms}: the
   * client's percentile minus the engine's interval, a bound and not a value (lo empty when the
   * engine's interval has no upper end).
   */
  private static List<Map.Entry<String, Function<FlatRecord, Object>>> engineColumns() {
    List<Map.Entry<String, Function<EngineView, Object>>> columns = new ArrayList<>();
    columns.add(Map.entry("engine_scrapes", EngineView::scrapes));
    columns.add(Map.entry("engine_failed_scrapes", EngineView::failedScrapes));
    columns.add(
        Map.entry(
            "engine_missing", e -> e.missing().isEmpty() ? null : String.join(";", e.missing())));
    Map<String, Function<EngineView, EngineView.Latency>> latencies = new LinkedHashMap<>();
    latencies.put("tpot", EngineView::tpot);
    latencies.put("ttft", EngineView::ttft);
    latencies.put("e2e", EngineView::e2e);
    latencies.forEach(
        (stat, latency) -> {
          Function<EngineView, List<EngineView.Interval>> intervals =
              e -> latency.apply(e) == null ? null : latency.apply(e).p50p99p999();
          addIntervals(columns, "engine_" + stat, intervals);
        });
    Map<String, Function<EngineView, EngineView.Gauge>> gauges = new LinkedHashMap<>();
    gauges.put("running", EngineView::running);
    gauges.put("waiting", EngineView::waiting);
    gauges.put("kv_cache", EngineView::kvCacheUsage);
    gauges.forEach(
        (name, gauge) -> {
          columns.add(
              Map.entry(
                  "engine_" + name + "_max",
                  e -> gauge.apply(e) == null ? null : gauge.apply(e).max()));
          columns.add(
              Map.entry(
                  "engine_" + name + "_mean",
                  e -> gauge.apply(e) == null ? null : gauge.apply(e).mean()));
        });
    columns.add(Map.entry("engine_prefix_cache_hit_ratio", EngineView::prefixCacheHitRate));
    Map<String, Function<EngineView.Outside, EngineView.Added>> outside = new LinkedHashMap<>();
    outside.put("tpot", EngineView.Outside::tpot);
    outside.put("ttft", EngineView.Outside::ttft);
    outside.forEach(
        (stat, added) -> {
          Function<EngineView, List<EngineView.Interval>> intervals =
              e -> {
                EngineView.Added a = e.outside() == null ? null : added.apply(e.outside());
                return a == null ? null : a.p50p99p999();
              };
          addIntervals(columns, "outside_engine_" + stat, intervals);
        });
    return columns.stream()
        .map(
            c ->
                Map.<String, Function<FlatRecord, Object>>entry(
                    c.getKey(), r -> c.getValue().apply(r.engine)))
        .toList();
  }

  /**
   * Adds {@code <prefix>_<p>_lo_ms} and {@code _hi_ms} for p50, p99 and p99.9 (named {@code p99_9},
   * as the client's columns), from the three intervals {@code intervals} gives (null: none).
   */
  private static void addIntervals(
      List<Map.Entry<String, Function<EngineView, Object>>> columns,
      String prefix,
      Function<EngineView, List<EngineView.Interval>> intervals) {
    List<String> names = List.of("p50", "p99", "p99_9");
    for (int i = 0; i < names.size(); i++) {
      int p = i;
      Function<EngineView, EngineView.Interval> interval =
          e -> intervals.apply(e) == null ? null : intervals.apply(e).get(p);
      columns.add(
          Map.entry(
              prefix + "_" + names.get(p) + "_lo_ms",
              e -> interval.apply(e) == null ? null : interval.apply(e).loMs()));
      columns.add(
          Map.entry(
              prefix + "_" + names.get(p) + "_hi_ms",
              e -> interval.apply(e) == null ? null : interval.apply(e).hiMs()));
    }
  }

  /** The column names for a CSV whose label columns are {@code labelNames}, in order. */
  public static List<String> columns(List<String> labelNames) {
    List<String> columns = new ArrayList<>(LEADING_COLUMNS);
    labelNames.forEach(name -> columns.add(LABEL_PREFIX + name));
    columns.addAll(STAT_COLUMNS);
    return columns;
  }

  public WindowKey key() {
    return new WindowKey(series, ts);
  }

  /**
   * Every field of this record in column order, with one {@code label_<name>} per label this record
   * carries; null values (empty statistics, unreported client health) are left out.
   */
  public Map<String, Object> fields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("window_start", windowStart);
    fields.put("window_end", windowEnd);
    fields.put("ts", ts);
    fields.put("series", series);
    fields.put("model", model);
    labels.forEach((name, value) -> fields.put(LABEL_PREFIX + name, value));
    for (Map.Entry<String, Function<FlatRecord, Object>> stat : STATS) {
      fields.put(stat.getKey(), stat.getValue().apply(this));
    }
    for (Map.Entry<String, Function<FlatRecord, Object>> stat : ENGINE) {
      fields.put(stat.getKey(), engine == null ? null : stat.getValue().apply(this));
    }
    fields.values().removeIf(value -> value == null);
    return fields;
  }

  /**
   * The CSV cells for the label columns {@code labelNames}: a label this record lacks, and a null
   * statistic, give an empty cell; labels not in {@code labelNames} are not written (the {@code
   * series} cell still names them).
   */
  public List<String> cells(List<String> labelNames) {
    Map<String, Object> fields = fields();
    List<String> cells = new ArrayList<>();
    for (String column : columns(labelNames)) {
      Object value = fields.get(column);
      cells.add(
          value == null
              ? ""
              : value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString());
    }
    return cells;
  }

  /** The {@code tpot.metrics} JSON: the fields in column order, null values left out. */
  public byte[] toJson() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    try (JsonGenerator json = Json.MAPPER.createGenerator(out)) {
      json.writeStartObject();
      for (Map.Entry<String, Object> field : fields().entrySet()) {
        Object value = field.getValue();
        if (value instanceof BigDecimal decimal) {
          json.writeNumberField(field.getKey(), decimal);
        } else if (value instanceof Long number) {
          json.writeNumberField(field.getKey(), number);
        } else if (value instanceof Boolean flag) {
          json.writeBooleanField(field.getKey(), flag);
        } else {
          json.writeStringField(field.getKey(), value.toString());
        }
      }
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the flat record of " + series, e);
    }
    return out.toByteArray();
  }

  private static LatencySummary orEmpty(LatencySummary summary) {
    return summary == null ? LatencySummary.EMPTY : summary;
  }
}
