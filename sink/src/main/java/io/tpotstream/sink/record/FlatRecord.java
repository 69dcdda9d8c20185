package io.tpotstream.sink.record;

import com.fasterxml.jackson.core.JsonGenerator;
import io.tpotstream.common.Json;
import io.tpotstream.common.stats.LatencySummary;
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

/**
 * The sink's flat record (DESIGN.md, "Sink"): one per series and window, the same fields in the CSV
 * header and in {@code tpot.metrics} JSON. Latencies in ms with three decimals, exactly as the
 * summary carries them. A latency field is null when its histogram had no sample in the window: an
 * empty CSV cell, and a field left out of the JSON.
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
    BigDecimal requestTpotP99Ms,
    long requestsStarted,
    long requestsCompleted,
    long requestsFailed,
    BigDecimal errorRate,
    long outputTokens,
    BigDecimal tokensPerS,
    long lateSamples,
    BigDecimal clientPauseMaxMs) {

  /** Columns before the labels. */
  public static final List<String> LEADING_COLUMNS =
      List.of("window_start", "window_end", "ts", "series", "model");

  /** Columns after the labels, in the seed's order. */
  public static final List<String> STAT_COLUMNS =
      List.of(
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
          "request_tpot_p99_ms",
          "requests_started",
          "requests_completed",
          "requests_failed",
          "error_rate",
          "output_tokens",
          "tokens_per_s",
          "late_samples");

  /** The trailing column: the producers' own worst pause in the window, when they reported it. */
  public static final String CLIENT_PAUSE_COLUMN = "client_pause_max_ms";

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
    RequestCounts requests = s.requests();
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
        requestTpot.p99Ms(),
        requests == null ? 0 : requests.started(),
        requests == null ? 0 : requests.completed(),
        requests == null ? 0 : requests.failed(),
        requests == null ? null : requests.errorRate(),
        s.outputTokens(),
        s.tokensPerSecond(),
        s.lateSamples(),
        s.clientPauseMaxMs());
  }

  /** The column names for a CSV whose label columns are {@code labelNames}, in order. */
  public static List<String> columns(List<String> labelNames) {
    List<String> columns = new ArrayList<>(LEADING_COLUMNS);
    labelNames.forEach(name -> columns.add(LABEL_PREFIX + name));
    columns.addAll(STAT_COLUMNS);
    columns.add(CLIENT_PAUSE_COLUMN);
    return columns;
  }

  public WindowKey key() {
    return new WindowKey(series, ts);
  }

  /**
   * Every field of this record in column order, with one {@code label_<name>} per label this record
   * carries; null values (empty statistics) are left out.
   */
  public Map<String, Object> fields() {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("window_start", windowStart);
    fields.put("window_end", windowEnd);
    fields.put("ts", ts);
    fields.put("series", series);
    fields.put("model", model);
    labels.forEach((name, value) -> fields.put(LABEL_PREFIX + name, value));
    Object[] stats = {
      tpotCount,
      tpotMeanMs,
      tpotP50Ms,
      tpotP90Ms,
      tpotP99Ms,
      tpotP999Ms,
      tpotP9999Ms,
      tpotMaxMs,
      ttftP50Ms,
      ttftP90Ms,
      ttftP99Ms,
      ttftMaxMs,
      requestTpotP50Ms,
      requestTpotP99Ms,
      requestsStarted,
      requestsCompleted,
      requestsFailed,
      errorRate,
      outputTokens,
      tokensPerS,
      lateSamples
    };
    for (int i = 0; i < stats.length; i++) {
      fields.put(STAT_COLUMNS.get(i), stats[i]);
    }
    fields.put(CLIENT_PAUSE_COLUMN, clientPauseMaxMs);
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
    ByteArrayOutputStream out = new ByteArrayOutputStream(768);
    try (JsonGenerator json = Json.MAPPER.createGenerator(out)) {
      json.writeStartObject();
      for (Map.Entry<String, Object> field : fields().entrySet()) {
        Object value = field.getValue();
        if (value instanceof BigDecimal decimal) {
          json.writeNumberField(field.getKey(), decimal);
        } else if (value instanceof Long number) {
          json.writeNumberField(field.getKey(), number);
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
