package io.tpotstream.app;

import io.tpotstream.app.archive.Exporter;
import io.tpotstream.common.Topics;
import io.tpotstream.common.kafka.KafkaConnection;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code tpot export}: archive token events to a JSONL file. */
@Command(
    name = "export",
    mixinStandardHelpOptions = true,
    header = "Archive token events with their keys, partitions and offsets.",
    description = "Archive token events with their keys, partitions and offsets to JSONL.")
final class ExportCommand implements Callable<Integer> {
  @Mixin KafkaOptions kafka;

  @Option(
      names = "--topic",
      defaultValue = Topics.TOKEN_EVENTS,
      description = "Topic to read (default: ${DEFAULT-VALUE}).")
  String topic;

  @Option(names = "--out", required = true, description = "Output file; .gz compresses.")
  Path out;

  @Option(
      names = "--from",
      description = "Only records with timestamp >= this (ISO-8601 instant or epoch ms).")
  String from;

  @Option(
      names = "--to",
      description = "Only records with timestamp < this (ISO-8601 instant or epoch ms).")
  String to;

  @Option(names = "--follow", description = "Keep reading new records until Ctrl-C.")
  boolean follow;

  @Override
  public Integer call() throws Exception {
    KafkaConnection connection = kafka.connect();
    Exporter exporter =
        new Exporter(
            new Exporter.Settings(
                connection.clientProperties(), topic, out, parseTime(from), parseTime(to), follow),
            System.err);
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
    KafkaOptions.explained(connection, KafkaAccess.reader(topic), "export " + topic, exporter::run);
    return 0;
  }

  /** Parses an ISO-8601 instant or epoch milliseconds; null stays null. */
  static Long parseTime(String text) {
    if (text == null) {
      return null;
    }
    if (text.chars().allMatch(Character::isDigit)) {
      return Long.parseLong(text);
    }
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a time: use an ISO-8601 instant (2026-12-02T10:00:00Z) or epoch ms");
    }
  }
}
