package io.tpotstream.app.cli;

import io.tpotstream.app.KafkaAccess;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.SinkConfig;
import io.tpotstream.sink.file.JsonlFile;
import io.tpotstream.sink.record.WholeRunTable;
import io.tpotstream.sink.report.Report;
import io.tpotstream.sink.report.ReportModel;
import io.tpotstream.sink.report.TopicSummaries;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tpot report}: charts and report.html from the sink's summaries. */
@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    header = "Draw PNG charts and report.html from the summaries of a run.",
    description = {
      "Charts (PNG) of TPOT p50/p99/p99.9, TTFT p50/p99, error rate and tokens/s over time per"
          + " series, and report.html with a whole-run table per series whose percentiles merge"
          + " the windows' histograms.",
      "The summaries come from the JSONL file the sink writes beside its CSV (the CSV has no"
          + " histograms), or from the summaries topic with --from-topic."
    })
final class ReportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ProgressOptions progressOptions;

  @Mixin SummariesCsvOptions csv;

  @Option(
      names = "--summaries",
      paramLabel = "JSONL",
      description = "The sink's JSONL file, when not beside the CSV.")
  Path summaries;

  @Option(
      names = "--from-topic",
      description = "Read the summaries topic from its beginning instead of a file.")
  boolean fromTopic;

  @Mixin KafkaOptions kafka;

  @Mixin SummariesInputOptions summariesTopic;

  @Mixin OutDirOptions outDir = new OutDirOptions(Path.of("out"));

  @Mixin LogScaleOptions scale;

  @Override
  public Integer call() throws Exception {
    String input = summariesTopic.topic();
    ReportModel model = new ReportModel();
    String source;
    try (Progress progress = progressOptions.start("report", spec.commandLine().getErr())) {
      Consumer<WindowSummary> add =
          summary -> {
            model.add(summary);
            progress.add(1);
          };
      if (fromTopic) {
        KafkaConnection connection = kafka.connect();
        progress.phase("reading " + input, "summaries", -1);
        KafkaOptions.explained(
            connection,
            KafkaAccess.reader(input),
            "read " + input,
            () -> {
              TopicSummaries.read(connection.clientProperties(), input, Duration.ofMinutes(2), add);
              return null;
            });
        source = "topic " + input;
      } else {
        Path jsonl = summaries != null ? summaries : SinkConfig.jsonlBeside(csv.csv);
        if (!Files.isRegularFile(jsonl)) {
          throw new IllegalArgumentException(
              "no "
                  + jsonl
                  + ": the report needs the summaries with their histograms (the CSV has none);"
                  + " `tpot sink` writes them beside its CSV unless --no-jsonl, or read the topic"
                  + " with --from-topic");
        }
        progress.phase("reading " + jsonl.getFileName(), "summaries", -1);
        JsonlFile.read(jsonl, add);
        source = jsonl.toString();
      }
      progress.finish(null);
    }
    if (model.isEmpty()) {
      throw new IllegalStateException(
          "no window summaries in "
              + source
              + ": has the aggregator closed a window yet, and is the sink running?");
    }
    PrintWriter stdout = spec.commandLine().getOut();
    for (Path file : Report.write(model, outDir.out, scale.logScale)) {
      stdout.println("wrote " + file + " (" + Files.size(file) + " bytes)");
    }
    stdout.println("From " + model.windows() + " windows of " + source + ":");
    stdout.print(
        WholeRunTable.format(
            model.seriesNames().stream().map(model::wholeRun).toList(), model.engines()));
    stdout.flush();
    return 0;
  }
}
