package io.tpotstream.app.cli;

import io.tpotstream.app.KafkaAccess;
import io.tpotstream.app.RunFile;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.archive.ArchiveReader;
import io.tpotstream.archive.ArchivedRecord;
import io.tpotstream.archive.Exporter;
import io.tpotstream.common.DurableFiles;
import io.tpotstream.common.Windows;
import io.tpotstream.common.event.TokenEvent;
import io.tpotstream.common.event.TokenEventFormatException;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.progress.Progress;
import io.tpotstream.common.trace.TraceBuilder;
import io.tpotstream.common.trace.TraceLine;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code tpot trace}: a trace in tpot's format (Mooncake's JSON lines and tpot's fields) of the
 * requests in a token-events topic or an export (docs/formats-and-replay.md, "Traces"). A topic is
 * read as {@code export} reads it, into an archive in a temporary directory, and every input then
 * as {@code stats} reads an archive; the lines come from {@link TraceBuilder}.
 */
@Command(
    name = "trace",
    mixinStandardHelpOptions = true,
    header = "Write a trace (Mooncake's JSON lines, tpot's fields) of the measured requests.",
    description = {
      "One line per request that has a start event, in start order: timestamp (ms from the first"
          + " request's start), input_length (the prompt tokens the API reported), output_length"
          + " (reported completion tokens, else the tokens counted), hash_ids (from the proxy's"
          + " --capture-prefix-hashes, renumbered 0, 1, 2, ...: the same id is the same prompt"
          + " block; no hash and no text is written), block_size 512, model and labels.",
      "Reads the token-events topic (--topic at --bootstrap-servers, as tpot export reads it) or"
          + " an archive (FILE: an export, or plain token events). Failed and unfinished requests"
          + " are written with what they got, unless --completed-only. Progress and a summary on"
          + " stderr."
    })
final class TraceCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin KafkaOptions kafka;

  @Mixin EventsTopicOptions events;

  @Mixin ArchiveFileOptions archive;

  @Mixin TimeRangeOptions range;

  @Option(
      names = "--model",
      paramLabel = "MODEL",
      description = "Only requests to this model (repeatable: any of them).")
  List<String> models = new ArrayList<>();

  @Option(
      names = "--label",
      paramLabel = "NAME=VALUE",
      description = "Only requests with this label and value (repeatable: all of them).")
  Map<String, String> labels = new LinkedHashMap<>();

  @Option(
      names = "--completed-only",
      description =
          "Leave out requests that failed or did not end within the input (by default they are"
              + " written with the output they got, and no input_length when no usage came).")
  boolean completedOnly;

  @Option(
      names = "--out",
      paramLabel = "FILE",
      description = "Write the trace to FILE, whole or not at all (default: stdout).")
  Path out;

  @Mixin AllowIncompleteOptions incomplete;

  @Mixin ProgressOptions progressOptions;

  @Override
  public Integer call() throws Exception {
    Optional<Path> file = archive.given("trace");
    if (file.isPresent()
        && Stream.of("--topic", "--bootstrap-servers", "--bootstrap-server")
            .anyMatch(spec.commandLine().getParseResult()::hasMatchedOption)) {
      throw new ParameterException(
          spec.commandLine(),
          "tpot trace reads a topic (--topic, --bootstrap-servers) or an archive (FILE), not"
              + " both");
    }
    if (out != null && !Files.isDirectory(parent(out))) {
      throw new IllegalArgumentException(
          "--out "
              + out
              + ": no directory "
              + parent(out)
              + " to write it in: create it, or check the path");
    }
    Long fromMs = range.fromMs(); // a wrong range is said before anything is read
    Long toMs = range.toMs();
    TraceBuilder.Filter filter = new TraceBuilder.Filter(Set.copyOf(models), labels, completedOnly);
    PrintWriter err = spec.commandLine().getErr();
    Path work = Files.createTempDirectory("tpot-trace-");
    try {
      Path input;
      boolean allowIncomplete = incomplete.allow;
      if (file.isPresent()) {
        input = file.get();
        StatsCommand.requireReadable(input);
        RunFile.requireEvents("trace", input);
      } else {
        input = exportTopic(work.resolve("events.jsonl.zst"), fromMs, toMs, err);
        allowIncomplete = true; // our own export: its gaps are warned about, then read
      }
      Path lines = Files.createTempFile(out == null ? work : parent(out), ".trace-", ".partial");
      try {
        TraceBuilder.Counts counts;
        long[] skipped = {0};
        try (Progress progress = progressOptions.start("trace", err)) {
          Consumer<String> skip =
              problem -> {
                skipped[0]++;
                progress.warn("tpot trace: " + input.getFileName() + " " + problem + " (skipped)");
              };
          Optional<ArchiveManifest> manifest =
              ArchiveManifest.check(input, "trace", allowIncomplete, progress::warn);
          ArchiveReader.Options options =
              new ArchiveReader.Options(
                  file.isPresent() ? fromMs : null, // the export already kept only the range
                  file.isPresent() ? toMs : null,
                  (line, reason) -> skip.accept("line " + line + ": " + reason),
                  progress);
          counts = write(input, manifest, options, filter, lines, skip, progress);
          if (counts.withoutInputLength() > 0) {
            progress.warn(
                String.format(
                    Locale.ROOT,
                    "tpot trace: lines without input_length: %,d (no prompt tokens in their"
                        + " usage: failed requests, or a server that reports none); a replay"
                        + " (tpot --trace, Mooncake's readers) needs it: --completed-only leaves"
                        + " the failed ones out",
                    counts.withoutInputLength()));
          }
          progress.finish(summary(counts, skipped[0]));
        }
        if (out != null) {
          Files.move(
              lines, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
          DurableFiles.syncDirectory(out);
        } else {
          PrintWriter stdout = spec.commandLine().getOut();
          try (Reader written = Files.newBufferedReader(lines, StandardCharsets.UTF_8)) {
            written.transferTo(stdout);
          }
          stdout.flush();
        }
      } finally {
        Files.deleteIfExists(lines);
      }
    } finally {
      deleteTree(work);
    }
    return 0;
  }

  /** Exports the topic (as {@code tpot export} does) into {@code file}; returns it. */
  private Path exportTopic(Path file, Long fromMs, Long toMs, PrintWriter err) throws Exception {
    String topic = events.topic;
    KafkaConnection connection = kafka.connect();
    Exporter exporter =
        new Exporter(
            new Exporter.Settings(connection.clientProperties(), topic, file, fromMs, toMs, false),
            progressOptions.start("trace", err));
    KafkaOptions.explained(connection, KafkaAccess.reader(topic), "trace " + topic, exporter::run);
    return file;
  }

  /**
   * Writes the trace of {@code input} to {@code lines}: while reading it when its manifest says it
   * is in the replay order, else (or when it turns out not to be) read whole and sorted.
   */
  private static TraceBuilder.Counts write(
      Path input,
      Optional<ArchiveManifest> manifest,
      ArchiveReader.Options options,
      TraceBuilder.Filter filter,
      Path lines,
      Consumer<String> skip,
      Progress progress)
      throws IOException {
    if (manifest.isPresent() && manifest.get().whyNotStreamable(input) == null) {
      progress.phase("reading " + input.getFileName(), "records", -1);
      try (Writer writer = Files.newBufferedWriter(lines, StandardCharsets.UTF_8)) {
        TraceBuilder builder = new TraceBuilder(filter, writer);
        ArchiveReader.stream(input, options, stretch -> accept(builder, stretch, skip));
        return builder.finish();
      } catch (ArchiveReader.NotInReplayOrder e) {
        progress.warn(
            "tpot trace: "
                + e.getMessage()
                + ", although its manifest says its lines are in that order: reading it whole");
      }
    }
    ArchiveReader.Archive read = ArchiveReader.read(input, options);
    progress.phase("writing the trace", "records", read.records().size());
    try (Writer writer = Files.newBufferedWriter(lines, StandardCharsets.UTF_8)) {
      TraceBuilder builder = new TraceBuilder(filter, writer);
      accept(builder, read.records(), skip);
      return builder.finish();
    }
  }

  /** Hands the token events of {@code records} to {@code builder}, in their order. */
  private static void accept(
      TraceBuilder builder, List<ArchivedRecord> records, Consumer<String> skip)
      throws IOException {
    for (ArchivedRecord r : records) {
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedIOException("interrupted");
      }
      if (r.isHeartbeat()) {
        continue;
      }
      TokenEvent e;
      try {
        e = r.event();
      } catch (TokenEventFormatException bad) {
        skip.accept("line " + r.line() + ": " + bad.getMessage());
        continue;
      }
      builder.accept(e);
    }
  }

  /** The summary line: what was written, and what a replay needs to know about it. */
  private String summary(TraceBuilder.Counts c, long skipped) {
    StringBuilder s =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "tpot trace: %,d requests to %s (%,d completed, %,d failed, %,d unfinished)",
                c.lines(),
                out == null ? "stdout" : out,
                c.completed(),
                c.failed(),
                c.unfinished()));
    if (c.firstStartMs() != null) {
      s.append(", the first started at ").append(Windows.iso(c.firstStartMs()));
    }
    s.append(
        String.format(
            Locale.ROOT,
            "; hash_ids on %,d (%,d distinct blocks of %d tokens)",
            c.withHashIds(),
            c.distinctBlocks(),
            TraceLine.BLOCK_SIZE_TOKENS));
    if (c.leftOut() > 0) {
      s.append(String.format(Locale.ROOT, "; %,d left out by --completed-only", c.leftOut()));
    }
    if (c.withoutStart() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "; %,d left out whose start is not in the input (they began before it)",
              c.withoutStart()));
    }
    if (c.hashIdsCutToInput() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "; %,d with more prompt blocks of %,d bytes than blocks of input tokens: hash_ids"
                  + " cut to input_length / %d",
              c.hashIdsCutToInput(),
              4 * TraceLine.BLOCK_SIZE_TOKENS,
              TraceLine.BLOCK_SIZE_TOKENS));
    }
    if (c.promptsPastHashBound() > 0) {
      s.append(
          String.format(
              Locale.ROOT,
              "; %,d prompts longer than their start event's hashes: ids on their first blocks"
                  + " only",
              c.promptsPastHashBound()));
    }
    if (skipped > 0) {
      s.append(String.format(Locale.ROOT, "; %,d lines skipped", skipped));
    }
    return s.toString();
  }

  private static Path parent(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    return parent == null ? Path.of(".") : parent;
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
