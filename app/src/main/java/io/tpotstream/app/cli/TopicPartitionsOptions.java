package io.tpotstream.app.cli;

import io.tpotstream.producer.publish.KafkaSettings;
import picocli.CommandLine.Option;

/**
 * {@code --partitions}: of the topic a command publishes to ({@code produce}, {@code proxy}, {@code
 * replay}).
 */
final class TopicPartitionsOptions {
  @Option(
      names = "--partitions",
      defaultValue = "" + KafkaSettings.DEFAULT_PARTITIONS,
      description =
          "Partitions of the topic when it has to be created (default: ${DEFAULT-VALUE}).")
  int partitions;
}
