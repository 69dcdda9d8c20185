package io.tpotstream.app.cli;

import io.tpotstream.app.KafkaAccess;
import io.tpotstream.archive.Exporter;
import io.tpotstream.common.kafka.KafkaConnection;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
          + " following with --follow); progress on stderr."
    })
final class ExportCommand implements Callable<Integer> {
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

  @Mixin ProgressOptions progress;

  @Override
  public Integer call() throws Exception {
    OldSpelling.notBoth(spec, "--file", "--out");
    Path out = archive.file("export");
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
                compressionLevel),
            progress.start("export", spec.commandLine().getErr()));
    // Ctrl-C with --follow: stop after the current poll and let the file be finished
    CountDownLatch finished = new CountDownLatch(1);
    Thread onStop =
        new Thread(
            () -> {
              exporter.stop();
              try {
                finished.await(10, TimeUnit.SECONDS);
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
    return 0;
  }
}
