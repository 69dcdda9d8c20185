package io.tpotstream.app.cli;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.app.RunFile;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.archive.ArchiveReader;
import io.tpotstream.archive.ArchivedRecord;
import io.tpotstream.common.Json;
import io.tpotstream.common.Series;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.request.RequestRecords;
import io.tpotstream.common.slo.GoodputLimits;
import io.tpotstream.common.stats.BucketCounts;
import io.tpotstream.common.stats.LatencyHistogram;
import io.tpotstream.sink.SinkConfig;
import io.tpotstream.sink.compare.CompareHtml;
import io.tpotstream.sink.compare.CompareResult;
import io.tpotstream.sink.compare.CompareTable;
import io.tpotstream.sink.compare.Comparison;
import io.tpotstream.sink.compare.RunData;
import io.tpotstream.sink.file.CsvFile;
import io.tpotstream.sink.file.JsonlFile;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tpot compare A B}: two runs side by side per series, with the difference and whether it is
 * beyond noise.
 */
@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    header = "Compare two runs: TPOT/TTFT percentiles side by side, the difference, and noise.",
    description = {
      "Each side is a run's summaries (the sink's summaries.jsonl, its summaries.csv, or the --out"
          + " directory of tpot run) or an export of its token events (tpot export).",
      "Per series: the whole-run TPOT p50/p90/p99/p99.9 and TTFT p50/p90/p99 of A and B (from"
          + " merged window histograms), B - A, and a bootstrap interval of B - A: over requests"
          + " when both sides are exports, else over windows. 'beyond noise' when the interval"
          + " leaves out 0. A CSV alone has no histograms: then the median over windows of each"
          + " window's percentile is compared (the .jsonl beside the CSV is used when present).",
      "--from/--to apply to both sides, as in stats: only the events of an export in the range;"
          + " of a summaries file only the windows wholly inside it (a window cannot be cut).",
      "Progress on stderr (reading and computing each side, then resampling); -q for none."
    })
final class CompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "A", description = "The first run (the baseline).")
  Path a;

  @Parameters(index = "1", paramLabel = "B", description = "The second run.")
  Path b;

  /** For exports: how their events become windows, as in stats. */
  @Mixin WindowOptions windowOptions;

  /** Both sides: only the events (or the whole windows) in this range, as in stats. */
  @Mixin TimeRangeOptions range;

  @Mixin AllowIncompleteOptions incomplete;

  @Mixin ProgressOptions progressOptions;

  @Option(
      names = "--format",
      defaultValue = "table",
      description = "What to print: table or json (default: ${DEFAULT-VALUE}).")
  String format;

  @Option(names = "--json", paramLabel = "FILE", description = "Also write the JSON here.")
  Path json;

  @Option(
      names = "--html",
      paramLabel = "FILE",
      description = "Also write an HTML page with the table and both runs' percentile curves.")
  Path html;

  @Option(
      names = "--resamples",
      defaultValue = "1000",
      description = "Bootstrap resamples (default: ${DEFAULT-VALUE}).")
  int resamples;

  @Option(
      names = "--confidence",
      defaultValue = "0.95",
      description = "Confidence of the interval of B - A (default: ${DEFAULT-VALUE}).")
  double confidence;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description =
          "Seed of the resampling, so that a comparison repeats (default: ${DEFAULT-VALUE}).")
  long seed;

  @Override
  public Integer call() throws IOException {
    if (!format.equals("table") && !format.equals("json")) {
      throw new IllegalArgumentException("unknown --format '" + format + "': use table or json");
    }
    Comparison.Settings settings = new Comparison.Settings(resamples, confidence, seed);
    StageSettings stages = windowOptions.settings();
    Long fromMs = range.fromMs();
    Long toMs = range.toMs();
    PrintWriter err = spec.commandLine().getErr();
    long startNs = System.nanoTime();
    try (Progress progress = progressOptions.start("compare", err)) {
      Sides sides = new Sides(stages, fromMs, toMs, incomplete.allow, progress);
      RunData left = sides.load(a);
      RunData right = sides.load(b);
      CompareResult result = Comparison.compare(left, right, settings, progress);
      String jsonText = Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(result);
      PrintWriter out = spec.commandLine().getOut();
      out.print(format.equals("json") ? jsonText + "\n" : CompareTable.format(result));
      out.flush();
      StringBuilder wrote = new StringBuilder();
      if (json != null) {
        Files.writeString(json, jsonText + "\n");
        wrote.append("; wrote ").append(json);
      }
      if (html != null) {
        CompareHtml.write(result, html);
        wrote.append(wrote.length() == 0 ? "; wrote " : " and ").append(html);
      }
      progress.finish(
          String.format(
              Locale.ROOT,
              "compare: %s and %s compared in %.1f s%s%s",
              sides.read(left),
              sides.read(right),
              (System.nanoTime() - startNs) / 1e9,
              sides.outsideRange > 0
                  ? String.format(Locale.ROOT, " (%,d outside --from/--to)", sides.outsideRange)
                  : "",
              wrote));
    }
    err.flush();
    return 0;
  }

  /** Reads the sides, whichever of the accepted files each is, counting on one progress. */
  static final class Sides {
    private final StageSettings stages;
    private final Long fromMs;
    private final Long toMs;
    private final boolean allowIncomplete;
    private final Progress progress;
    private final java.util.Map<RunData, Long> records = new java.util.IdentityHashMap<>();
    long outsideRange;

    Sides(
        StageSettings stages, Long fromMs, Long toMs, boolean allowIncomplete, Progress progress) {
      this.stages = stages;
      this.fromMs = fromMs;
      this.toMs = toMs;
      this.allowIncomplete = allowIncomplete;
      this.progress = progress;
    }

    /** What was read of {@code run}, for the result line. */
    String read(RunData run) {
      Long n = records.get(run);
      return n == null
          ? String.format(Locale.ROOT, "%s (%,d windows)", run.source(), run.windows())
          : String.format(Locale.ROOT, "%s (%,d events)", run.source(), n);
    }

    /** Reads one side. */
    RunData load(Path path) throws IOException {
      if (Files.isDirectory(path)) {
        Path jsonl = path.resolve("summaries.jsonl");
        if (!Files.isRegularFile(jsonl)) {
          throw new IllegalArgumentException(
              path
                  + " is a directory without summaries.jsonl: give the --out directory of a run,"
                  + " a summaries file or an export");
        }
        return summaries(jsonl, jsonl.toString());
      }
      if (!Files.isReadable(path)) {
        throw new IllegalArgumentException("cannot read " + path + ": check the path");
      }
      if (ArchiveManifest.isUnfinishedExport(path)) {
        ArchiveManifest.check(path, "compare", allowIncomplete, progress::warn); // refuses it
      }
      switch (RunFile.of(path)) {
        case SUMMARIES_CSV -> {
          Path beside = SinkConfig.jsonlBeside(path);
          if (Files.isRegularFile(beside) && RunFile.of(beside) == RunFile.Kind.SUMMARIES) {
            return summaries(beside, path + " (histograms from " + beside.getFileName() + ")");
          }
          RunData run = new RunData(path.toString(), RunData.Kind.CSV);
          progress.phase("reading " + path.getFileName(), "windows", -1);
          CsvFile.readRows(
              path,
              row -> {
                progress.add(1);
                if (csvRowInRange(path, row)) {
                  run.addCsvRow(row);
                } else {
                  outsideRange++;
                }
              });
          return nonEmpty(run);
        }
        case SUMMARIES -> {
          return summaries(path, path.toString());
        }
        case EVENTS -> {
          return export(path);
        }
        default ->
            throw new IllegalArgumentException(
                path
                    + " is neither window summaries (the sink's .jsonl or .csv) nor token events"
                    + " (tpot export): check the file");
      }
    }

    /**
     * Whether a window lies wholly inside --from/--to: a summary cannot be cut, so a window the
     * range cuts is left out.
     */
    private boolean windowInRange(long startMs, long endMs) {
      return (fromMs == null || startMs >= fromMs) && (toMs == null || endMs <= toMs);
    }

    private boolean csvRowInRange(Path csv, java.util.Map<String, String> row) {
      if (fromMs == null && toMs == null) {
        return true;
      }
      String start = row.get("window_start");
      String end = row.get("ts");
      if (start == null || end == null) {
        return true; // RunData says what is missing
      }
      try {
        return windowInRange(Instant.parse(start).toEpochMilli(), Long.parseLong(end));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(
            csv
                + ": a row's window_start '"
                + start
                + "' (ISO-8601) or ts '"
                + end
                + "' (epoch ms) is not a time: is it a tpot summaries CSV?");
      }
    }

    private RunData summaries(Path jsonl, String source) {
      RunData run = new RunData(source, RunData.Kind.SUMMARIES);
      progress.phase("reading " + jsonl.getFileName(), "windows", -1);
      JsonlFile.read(
          jsonl,
          s -> {
            progress.add(1);
            if (windowInRange(s.windowStartMs(), s.windowEndMs())) {
              run.addWindow(s);
            } else {
              outsideRange++;
            }
          });
      return nonEmpty(run);
    }

    private RunData export(Path file) throws IOException {
      ArchiveManifest.check(file, "compare", allowIncomplete, progress::warn);
      RunData run = new RunData(file.toString(), RunData.Kind.EXPORT);
      String name = file.getFileName().toString();
      ArchiveReader.Archive archive =
          ArchiveReader.read(
              file,
              new ArchiveReader.Options(
                  fromMs,
                  toMs,
                  (line, reason) ->
                      progress.warn("tpot compare: " + name + " line " + line + ": " + reason),
                  progress));
      List<ArchivedRecord> records = archive.records();
      outsideRange += archive.outsideRange();
      progress.phase("computing " + name, "events", records.size());
      OfflineStats.computeArchived(
              records,
              stages,
              problem -> progress.warn("tpot compare: " + name + " " + problem),
              progress)
          .forEach(run::addWindow);
      progress.phase("requests of " + name, "events", records.size());
      LatencyHistogram gaps = new LatencyHistogram();
      RequestRecords.follow(
          ArchiveFile.tokenEvents(records, progress),
          GoodputLimits.NONE,
          (trace, record) -> {
            gaps.reset();
            trace.recordGaps(gaps);
            String series =
                Series.name(trace.model(), Series.select(trace.labels(), stages.groupBy()));
            run.addRequest(series, BucketCounts.of(gaps), trace.ttftMicros());
          });
      this.records.put(run, (long) records.size());
      return nonEmpty(run);
    }
  }

  private static RunData nonEmpty(RunData run) {
    if (run.seriesNames().isEmpty()) {
      throw new IllegalArgumentException(
          run.source() + " holds no window and no request: nothing to compare");
    }
    return run;
  }
}
