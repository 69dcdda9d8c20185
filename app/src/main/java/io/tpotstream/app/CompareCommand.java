package io.tpotstream.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.common.Json;
import io.tpotstream.common.Series;
import io.tpotstream.common.archive.ArchiveCompression;
import io.tpotstream.common.archive.ArchiveReader;
import io.tpotstream.common.archive.ArchivedRecord;
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
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
          + " window's percentile is compared (the .jsonl beside the CSV is used when present)."
    })
final class CompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "A", description = "The first run (the baseline).")
  Path a;

  @Parameters(index = "1", paramLabel = "B", description = "The second run.")
  Path b;

  /** For exports: how their events become windows, as in stats. */
  @Mixin WindowOptions windowOptions;

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
    PrintWriter err = spec.commandLine().getErr();
    RunData left = load(a, stages, err);
    RunData right = load(b, stages, err);
    CompareResult result = Comparison.compare(left, right, settings);
    String jsonText = Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(result);
    PrintWriter out = spec.commandLine().getOut();
    out.print(format.equals("json") ? jsonText + "\n" : CompareTable.format(result));
    out.flush();
    if (json != null) {
      Files.writeString(json, jsonText + "\n");
      err.println("tpot compare: wrote " + json);
    }
    if (html != null) {
      CompareHtml.write(result, html);
      err.println("tpot compare: wrote " + html);
    }
    err.flush();
    return 0;
  }

  /** Reads one side, whichever of the accepted files it is. */
  static RunData load(Path path, StageSettings stages, PrintWriter err) throws IOException {
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
    String name = path.getFileName().toString();
    if (name.endsWith(".csv")) {
      Path beside = SinkConfig.jsonlBeside(path);
      if (Files.isRegularFile(beside)) {
        return summaries(beside, path + " (histograms from " + beside.getFileName() + ")");
      }
      RunData run = new RunData(path.toString(), RunData.Kind.CSV);
      CsvFile.readRows(path, run::addCsvRow);
      return nonEmpty(run);
    }
    JsonNode first = firstRecord(path);
    if (first != null && first.has("windowStartMs") && first.has("series")) {
      return summaries(path, path.toString());
    }
    if (first != null && (first.has("type") || first.has("value"))) {
      return export(path, stages, err);
    }
    throw new IllegalArgumentException(
        path
            + " is neither window summaries (the sink's .jsonl or .csv) nor token events (tpot"
            + " export): check the file");
  }

  private static RunData summaries(Path jsonl, String source) {
    RunData run = new RunData(source, RunData.Kind.SUMMARIES);
    JsonlFile.read(jsonl, run::addWindow);
    return nonEmpty(run);
  }

  private static RunData export(Path file, StageSettings stages, PrintWriter err)
      throws IOException {
    RunData run = new RunData(file.toString(), RunData.Kind.EXPORT);
    List<ArchivedRecord> records =
        ArchiveReader.readInReplayOrder(
            file,
            (line, reason) ->
                err.println(
                    "tpot compare: " + file.getFileName() + " line " + line + ": " + reason));
    OfflineStats.computeArchived(
            records,
            stages,
            problem -> err.println("tpot compare: " + file.getFileName() + " " + problem),
            null)
        .forEach(run::addWindow);
    LatencyHistogram gaps = new LatencyHistogram();
    RequestRecords.follow(
        ArchiveFile.tokenEvents(records),
        GoodputLimits.NONE,
        (trace, record) -> {
          gaps.reset();
          trace.recordGaps(gaps);
          String series =
              Series.name(trace.model(), Series.select(trace.labels(), stages.groupBy()));
          run.addRequest(series, BucketCounts.of(gaps), trace.ttftMicros());
        });
    return nonEmpty(run);
  }

  private static RunData nonEmpty(RunData run) {
    if (run.seriesNames().isEmpty()) {
      throw new IllegalArgumentException(
          run.source() + " holds no window and no request: nothing to compare");
    }
    return run;
  }

  private static JsonNode firstRecord(Path file) throws IOException {
    InputStream in = ArchiveCompression.of(file).decompress(Files.newInputStream(file));
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank()) {
          try {
            return Json.MAPPER.readTree(line);
          } catch (IOException e) {
            return null;
          }
        }
      }
    }
    return null;
  }
}
