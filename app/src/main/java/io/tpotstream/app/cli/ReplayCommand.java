package io.tpotstream.app.cli;

import io.tpotstream.app.KafkaAccess;
import io.tpotstream.app.RunFile;
import io.tpotstream.archive.Replayer;
import io.tpotstream.common.kafka.KafkaConnection;
import io.tpotstream.common.kafka.KafkaPreflight;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code tpot replay}: publish archived token events again. */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    header = "Publish archived token events again to recompute statistics.",
    description = {
      "Publish an archive written by tpot export again, in (ts, original partition, original"
          + " offset) order, keys and timestamps kept, each distinct heartbeat once to every"
          + " partition of the target; a new target gets retention.ms=-1. The target is a new"
          + " topic unless told (never the live one by default).",
      "An export with its manifest (in the replay order) is sent while it is read; any other"
          + " archive is read and sorted whole first (held in memory, uncompressed). Progress on"
          + " stderr."
    })
final class ReplayCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Mixin KafkaOptions kafka;

  @Mixin ArchiveFileOptions archive;

  @Option(
      names = "--topic",
      paramLabel = "TOPIC",
      description =
          "Target topic (default: tpot.replay.NAME, NAME the file's whole name without its"
              + " .jsonl/.gz/.zst/.lz4 extensions). A topic that already holds records is refused"
              + " unless --append.")
  String topic;

  @Option(
      names = "--append",
      description =
          "Add to a target that already holds records (the live topic: the replayed requests are"
              + " counted again by a live aggregator).")
  boolean append;

  @Mixin AllowIncompleteOptions incomplete;

  @Option(
      names = "--speed",
      defaultValue = "max",
      description =
          "max (as fast as the broker takes it), 1x (as recorded) or Nx (N times faster)"
              + " (default: ${DEFAULT-VALUE}).")
  String speed;

  @Mixin TopicPartitionsOptions partitions;

  @Mixin TimeRangeOptions range;

  @Mixin ProgressOptions progress;

  @Override
  public Integer call() throws Exception {
    Path file = archive.file("replay");
    String topic = this.topic != null ? this.topic : Replayer.defaultTopic(file);
    double factor = parseSpeed(speed);
    // the replay checks the connection while it reads the archive (KafkaPreflight); for a file that
    // is missing or unreadable, Kafka's problems are still said first
    KafkaConnection connection = kafka.resolve();
    if (!Files.isReadable(file)) {
      KafkaPreflight.check(connection);
      StatsCommand.requireReadable(file);
    }
    RunFile.requireEvents("replay", file);
    Replayer replayer =
        new Replayer(
            new Replayer.Settings(
                connection,
                file,
                topic,
                factor,
                partitions.partitions,
                range.fromMs(),
                range.toMs(),
                incomplete.allow,
                append),
            progress.start("replay", spec.commandLine().getErr()));
    KafkaOptions.explained(
        connection, KafkaAccess.writer(topic), "replay " + file + " into " + topic, replayer::run);
    return 0;
  }

  static double parseSpeed(String text) {
    if ("max".equalsIgnoreCase(text)) {
      return 0;
    }
    String number =
        text.endsWith("x") || text.endsWith("X") ? text.substring(0, text.length() - 1) : text;
    try {
      double factor = Double.parseDouble(number);
      if (factor > 0) {
        return factor;
      }
    } catch (NumberFormatException e) {
      // fall through to the message below
    }
    throw new IllegalArgumentException("--speed " + text + ": use max, 1x or Nx (e.g. 10x)");
  }
}
