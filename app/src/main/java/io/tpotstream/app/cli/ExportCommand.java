package io.tpotstream.app.cli;

import io.tpotstream.app.KafkaAccess;
import io.tpotstream.archive.ArchiveManifest;
import io.tpotstream.archive.Exporter;
import io.tpotstream.common.kafka.KafkaConnection;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tpot export}: archive token events to a JSONL file. */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    header = "Archive token events with their keys, partitions and offsets.",
    description = {
      "Archive token events with their keys, partitions and offsets to JSONL (one record per"
          + " line), compressed as the file's name says: .gz (gzip), .zst (zstd), .lz4, or plain.",
      "Reads committed records of every partition up to the end offsets at the start (or keeps"
          + " following with --follow); progress on stderr.",
      "With --follow and --roll-size or --roll-every, writes consecutive segments instead of one"
          + " archive, FILE's name with a number before its extensions (run.jsonl.zst:"
          + " run.00001.jsonl.zst, run.00002.jsonl.zst, ...), each finished as a whole archive with"
          + " its own manifest once it passes the size or the age, so a crash (kill -9) loses at"
          + " most the open segment (.NAME.partial, which replay and stats refuse). Each segment is"
          + " an archive of its own for replay and stats.",
      "Exit status 4 when the archive (or a segment) is incomplete (stopped before its end, or records deleted"
          + " by retention before they were read): its manifest says what is missing."
    })
final class ExportCommand implements Callable<Integer> {
  /** The exit status of an export whose archive is incomplete (stopped early, retention gaps). */
  static final int EXIT_INCOMPLETE = 4;

  @Spec CommandSpec spec;

  @Mixin KafkaOptions kafka;

  @Mixin EventsTopicOptions events;

  @Mixin ArchiveFileOptions archive;

  @Option(names = "--out", paramLabel = "FILE", description = "Old spelling of --file.")
  void out(Path file) {
    archive.option = file;
  }

  @Option(
      names = "--compression-level",
      paramLabel = "N",
      description =
          "gzip 1-9 (default 1: fast) or zstd 1-19 (default 1); higher levels make smaller"
              + " files more slowly.")
  Integer compressionLevel;

  @Mixin TimeRangeOptions range;

  @Option(names = "--follow", description = "Keep reading new records until Ctrl-C.")
  boolean follow;

  @Option(
      names = "--roll-size",
      paramLabel = "SIZE",
      converter = ByteSizeConverter.class,
      description =
          "With --follow: finish the segment once its file (compressed) passes SIZE, e.g. 256MB,"
              + " 1GiB, and start the next; it passes SIZE by what the writer still holds (up to"
              + " about 10 MB of lines). replay and stats read a segment whole: a zstd segment holds"
              + " about 20 times its size in lines (default: no rolling by size).")
  Long rollSize;

  @Option(
      names = "--roll-every",
      paramLabel = "DURATION",
      description =
          "With --follow: finish the segment DURATION after its first record, e.g. 1h, and start"
              + " the next; a quiet topic makes no empty segments (default: no rolling by time).")
  Duration rollEvery;

  @Mixin ProgressOptions progress;

  @Override
  public Integer call() throws Exception {
    OldSpelling.notBoth(spec, "--file", "--out");
    Path out = archive.file("export");
    if ((rollSize != null || rollEvery != null) && !follow) {
      throw new IllegalArgumentException(
          "--roll-size and --roll-every need --follow: an export to the topic's end is one"
              + " archive, in the replay order");
    }
    String topic = events.topic;
    KafkaConnection connection = kafka.connect();
    Exporter exporter =
        new Exporter(
            new Exporter.Settings(
                connection.clientProperties(),
                topic,
                out,
                range.fromMs(),
                range.toMs(),
                follow,
                compressionLevel,
                rollSize,
                rollEvery),
            progress.start("export", spec.commandLine().getErr()));
    // Ctrl-C or SIGTERM: stop after the current poll and wait, however long it takes, until the
    // file is finished, fsynced and renamed beside its manifest (a JVM that halted before that
    // would leave only the temporary file)
    CountDownLatch finished = new CountDownLatch(1);
    PrintWriter err = spec.commandLine().getErr();
    Thread onStop =
        new Thread(
            () -> {
              if (finished.getCount() == 0) {
                return;
              }
              exporter.stop();
              err.println(
                  "tpot export: stopping: finishing "
                      + (rollSize != null || rollEvery != null ? "the open segment of " : "")
                      + out
                      + " with what was read, and its manifest (this waits until the file is"
                      + " written, however long it takes; kill -9 would leave only its temporary"
                      + " file)");
              err.flush();
              try {
                finished.await();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    Runtime.getRuntime().addShutdownHook(onStop);
    try {
      KafkaOptions.explained(
          connection, KafkaAccess.reader(topic), "export " + topic, exporter::run);
    } finally {
      finished.countDown();
    }
    // an archive (or a segment) that is not whole fails the command, so that `export &&
    // delete-topic` keeps data
    for (ArchiveManifest written : exporter.manifests()) {
      if (written.whyIncomplete() != null) {
        return EXIT_INCOMPLETE;
      }
    }
    return 0;
  }
}
