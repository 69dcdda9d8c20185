package io.tpotstream.bench.history;

import io.tpotstream.common.Series;
import io.tpotstream.common.summary.WindowStats;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.common.summary.WindowSummaryCodec;
import io.tpotstream.sink.file.Csv;
import io.tpotstream.sink.record.FlatRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A sink's CSV and JSONL files holding a long history of {@link #SERIES} series, written window by
 * window as the sink writes them: each series' line is its real summary (histograms included) with
 * only the window's start and end changed, so that months of lines take minutes, not hours.
 */
final class HistoryFiles {
  static final int SERIES = 100;
  static final long WINDOW_MS = 10_000;

  private final List<WindowStats> stats = new ArrayList<>();

  HistoryFiles() {
    for (int s = 0; s < SERIES; s++) {
      stats.add(windowOf(new Random(s)));
    }
  }

  /** Series {@code s}'s name (and model). */
  static String series(int s) {
    return String.format("model-%02d", s);
  }

  /**
   * A window of a series at concurrency 10 and 50 tokens/s: 5,000 TPOT gaps around 20 ms with
   * stalls, 50 requests (one failed).
   */
  private static WindowStats windowOf(Random random) {
    WindowStats stats = new WindowStats();
    for (int i = 0; i < 5_000; i++) {
      long gap = (long) (20_000 * Math.exp(0.4 * random.nextGaussian()));
      stats.tpot.recordMicros(random.nextInt(500) == 0 ? gap + random.nextInt(200_000) : gap);
    }
    for (int i = 0; i < 50; i++) {
      stats.ttft.recordMicros(150_000 + random.nextInt(300_000));
      stats.requestTpot.recordMicros(18_000 + random.nextInt(6_000));
      stats.e2e.recordMicros(2_000_000 + random.nextInt(1_000_000));
    }
    stats.started(50);
    stats.completed(49, false);
    stats.failed("http_429", 1);
    stats.outputTokens(5_049);
    return stats;
  }

  /** The summary of series {@code s} for the window ending at {@code windowEndMs}. */
  WindowSummary summary(int s, long windowEndMs) {
    String name = series(s);
    return stats
        .get(s)
        .toSummary(
            Series.name(name, Map.of()), name, Map.of(), windowEndMs - WINDOW_MS, windowEndMs);
  }

  /**
   * Writes {@code windows} windows of every series, the last ending at {@code lastEndMs}, to {@code
   * csv} and {@code jsonl} (replacing them); none for 0.
   *
   * @return the bytes written to both files, which are on the disk when it returns
   */
  long write(Path csv, Path jsonl, long windows, long lastEndMs) {
    try (BufferedWriter csvOut = Files.newBufferedWriter(csv, StandardCharsets.UTF_8);
        BufferedWriter jsonlOut = Files.newBufferedWriter(jsonl, StandardCharsets.UTF_8)) {
      if (windows == 0) {
        return 0;
      }
      csvOut.write(String.join(",", FlatRecord.columns(List.of())) + "\n");
      long firstEndMs = lastEndMs - (windows - 1) * WINDOW_MS;
      List<LineTemplate> csvLines = new ArrayList<>();
      List<LineTemplate> jsonLines = new ArrayList<>();
      for (int s = 0; s < SERIES; s++) {
        WindowSummary summary = summary(s, firstEndMs);
        String iso0 = Instant.ofEpochMilli(firstEndMs - WINDOW_MS).toString();
        String iso1 = Instant.ofEpochMilli(firstEndMs).toString();
        String ms0 = Long.toString(firstEndMs - WINDOW_MS);
        String ms1 = Long.toString(firstEndMs);
        csvLines.add(
            LineTemplate.of(Csv.line(FlatRecord.of(summary).cells(List.of())), iso0, iso1, ms1));
        jsonLines.add(
            LineTemplate.of(WindowSummaryCodec.encodeToString(summary), iso0, iso1, ms0, ms1));
      }
      for (long w = 0; w < windows; w++) {
        long endMs = firstEndMs + w * WINDOW_MS;
        String start = Instant.ofEpochMilli(endMs - WINDOW_MS).toString();
        String end = Instant.ofEpochMilli(endMs).toString();
        String startMs = Long.toString(endMs - WINDOW_MS);
        String endMsText = Long.toString(endMs);
        for (int s = 0; s < SERIES; s++) {
          csvLines.get(s).writeTo(csvOut, start, end, endMsText);
          jsonLines.get(s).writeTo(jsonlOut, start, end, startMs, endMsText);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the history files: " + e.getMessage(), e);
    }
    // on the disk before the sink starts, as a history is: its first fsync must not write it
    return force(csv) + force(jsonl);
  }

  private static long force(Path file) {
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      channel.force(true);
      return channel.size();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot sync " + file + ": " + e.getMessage(), e);
    }
  }
}
