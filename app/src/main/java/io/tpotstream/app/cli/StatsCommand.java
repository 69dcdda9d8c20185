package io.tpotstream.app.cli;

import io.tpotstream.aggregator.offline.OfflineStats;
import io.tpotstream.aggregator.stage1.StageSettings;
import io.tpotstream.app.RunFile;
import io.tpotstream.app.SloGate;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.archive.ArchiveReader;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.request.RequestRecords;
import io.tpotstream.common.request.RequestsFile;
import io.tpotstream.common.slo.SloSpec;
import io.tpotstream.common.slo.SloVerdict;
import io.tpotstream.common.summary.WindowSummary;
import io.tpotstream.sink.record.SummaryFormat;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code tpot stats FILE}: the aggregator's statistics over a file of token events, without Kafka.
 */
@Command(
    name = "stats",
    mixinStandardHelpOptions = true,
    header = "The aggregator's statistics offline, from an exported file.",
    description = {
      "Compute the window summaries of a token-event file offline (a tpot export file or plain"
          + " JSONL token events; .gz, .zst and .lz4 too), with the same logic as the aggregator.",
      "The end of the file counts as every producer's final heartbeat. A line that is not a"
          + " token event is reported on stderr with its number and skipped; progress on stderr."
    })
final class StatsCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin ArchiveFileOptions archive;

  @Option(
      names = "--format",
      defaultValue = "table",
      description =
          "table, json (one summary per line, the aggregator's JSON) or csv"
              + " (default: ${DEFAULT-VALUE}).")
  String format;

  @Mixin RequestsOutOptions requestsOutOptions;

  @Mixin WindowOptions windowOptions;

  @Mixin SloOptions sloOptions;

  @Mixin TimeRangeOptions range;

  @Mixin AllowIncompleteOptions incomplete;

  @Mixin ProgressOptions progressOptions;

  @Override
  public Integer call() throws IOException {
    Path file = archive.file("stats");
    Path requestsOut = requestsOutOptions.file;
    SloSpec slo = sloOptions.spec();
    SummaryFormat output = SummaryFormat.of(format);
    requireReadable(file);
    RunFile.requireEvents("stats", file);
    StageSettings settings = windowOptions.settings().withSlo(slo);
    Long fromMs = range.fromMs(); // a wrong range is said before the file is looked at
    Long toMs = range.toMs();
    PrintWriter err = spec.commandLine().getErr();
    long[] problems = {0};
    List<WindowSummary> summaries;
    ArchiveReader.Archive archive = null; // read whole only when not streamed
    long events;
    try (Progress progress = progressOptions.start("stats", err)) {
      // the reader's thread and, while a file is streamed, the workers report at the same time
      Consumer<String> skipped =
          problem -> {
            synchronized (problems) {
              problems[0]++;
              progress.warn("tpot stats: " + file.getFileName() + " " + problem + " (skipped)");
            }
          };
      Optional<ArchiveManifest> manifest =
          ArchiveManifest.check(file, "stats", incomplete.allow, progress::warn);
      ArchiveReader.Options options =
          new ArchiveReader.Options(
              fromMs,
              toMs,
              (line, reason) -> skipped.accept("line " + line + ": " + reason),
              progress);
      Optional<Computed> streamed =
          requestsOut == null
              ? streamed(file, manifest, options, settings, skipped, progress)
              : Optional.empty();
      if (streamed.isPresent()) {
        summaries = streamed.get().summaries();
        events = streamed.get().events();
      } else {
        synchronized (problems) {
          problems[0] = 0; // a stream that turned out not to be in order: its lines are read again
        }
        archive = ArchiveReader.read(file, options);
        events = archive.records().size();
        progress.phase("computing", "events", events);
        summaries = OfflineStats.computeArchived(archive.records(), settings, skipped, progress);
      }
      String requests = "";
      if (requestsOut != null) {
        progress.phase("writing " + requestsOut.getFileName(), "events", events);
        requests = writeRequests(archive, slo, requestsOut, progress);
      }
      progress.finish(
          requests
              + "tpot stats: "
              + events
              + " events, "
              + problems[0]
              + " lines skipped, "
              + summaries.size()
              + " summaries");
    }
    output.write(summaries, settings.groupBy(), spec.commandLine().getOut());
    if (slo.isEmpty()) {
      err.flush();
      return 0;
    }
    SloVerdict verdict = SloGate.verdict(slo, summaries);
    err.println("tpot stats: " + verdict.line());
    err.flush();
    return verdict.exitCode();
  }

  /** Summaries computed from a file, and the events they were computed from. */
  private record Computed(List<WindowSummary> summaries, long events) {}

  /**
   * The summaries of an export whose manifest says its lines are in the replay order, computed
   * while it is read: only the blocks in flight are held, not the whole file, which the collector
   * would otherwise copy from the young generation to the old and compact as it grew
   * (BENCHMARKS.md, B5, "Stats while reading"). Empty for any other file, and when the file turns
   * out not to be in that order (it is then read whole and sorted, as any other).
   */
  private static Optional<Computed> streamed(
      Path file,
      Optional<ArchiveManifest> manifest,
      ArchiveReader.Options options,
      StageSettings settings,
      Consumer<String> skipped,
      Progress progress)
      throws IOException {
    if (manifest.isEmpty() || manifest.get().whyNotStreamable(file) != null) {
      return Optional.empty();
    }
    progress.phase("computing", "events", options.ranged() ? -1 : manifest.get().records());
    // the reader counts the progress (records read); the workers count nothing
    try (OfflineStats.Streaming stats = OfflineStats.streaming(settings, skipped, null)) {
      ArchiveReader.Streamed read =
          ArchiveReader.stream(
              file,
              options,
              stretch -> {
                try {
                  stats.accept(stretch);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new InterruptedIOException("interrupted");
                }
              });
      return Optional.of(new Computed(stats.finish(), read.records()));
    } catch (ArchiveReader.NotInReplayOrder e) {
      progress.warn(
          "tpot stats: "
              + e.getMessage()
              + ", although its manifest says its lines are in that order: reading it whole (lines"
              + " skipped above are reported again)");
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted");
    }
  }

  /** Writes the per-request records of the archive; returns the result line (ends in a newline). */
  private static String writeRequests(
      ArchiveReader.Archive archive, SloSpec slo, Path requestsOut, Progress progress)
      throws IOException {
    long[] written = {0};
    try (RequestsFile records = RequestsFile.create(requestsOut)) {
      IOException[] failed = {null};
      RequestRecords.fromEvents(
          ArchiveFile.tokenEvents(archive.records(), progress),
          slo.goodput(),
          record -> {
            try {
              records.write(record);
              written[0]++;
            } catch (IOException e) {
              failed[0] = e;
            }
          });
      if (failed[0] != null) {
        throw failed[0];
      }
    }
    return "tpot stats: " + written[0] + " request records in " + requestsOut + "\n";
  }

  /** Fails with what to check when {@code file} cannot be read. */
  static void requireReadable(Path file) {
    if (!Files.isReadable(file)) {
      throw new IllegalArgumentException(
          "cannot read "
              + file
              + (Files.exists(file)
                  ? ": check its permissions"
                  : ": no such file, check the path"));
    }
  }
}
