package io.tpotstream.app;

import io.tpotstream.app.archive.Exporter;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
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

  @Option(
      names = "--topic",
      defaultValue = Topics.TOKEN_EVENTS,
      description = "Topic to read (default: ${DEFAULT-VALUE}).")
  String topic;

  @Option(
      names = {"-f", "--file", "--out"},
      paramLabel = "FILE",
      description =
          "The archive to write (or give it as the argument); .gz, .zst and .lz4 compress."
              + " --out is the old spelling.")
  Path fileOption;

  @Parameters(arity = "0..1", paramLabel = "FILE", description = "The archive to write.")
  Path filePositional;

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
    Path out = ArchiveFile.of("export", fileOption, filePositional);
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
