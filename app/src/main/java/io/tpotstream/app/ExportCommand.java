package io.tpotstream.app;

import io.tpotstream.app.archive.Exporter;
import io.tpotstream.common.Topics;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

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
    Exporter exporter =
        new Exporter(
            new Exporter.Settings(
                kafka.clientProperties(),
                topic,
                out,
                range.fromMs(),
                range.toMs(),
                follow,
                compressionLevel),
            progress.start("export"));
    Thread main = Thread.currentThread();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  exporter.stop();
                  try {
                    main.join(5_000);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }));
    exporter.run();
    return 0;
  }
}
