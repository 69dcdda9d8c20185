package io.tpotstream.app;

import io.tpotstream.common.Topics;
import io.tpotstream.producer.publish.KafkaSettings;
import picocli.CommandLine.Option;

/** Where a producer of token events publishes: {@code produce} and {@code proxy}. */
final class EventsTopicOptions {
  @Option(
      names = "--topic",
      defaultValue = Topics.TOKEN_EVENTS,
      description = "Token-events topic (default: ${DEFAULT-VALUE}); created if missing.")
  String topic;

  @Option(
      names = "--partitions",
      defaultValue = "" + KafkaSettings.DEFAULT_PARTITIONS,
      description =
          "Partitions of the topic when it has to be created (default: ${DEFAULT-VALUE}).")
  int partitions;
}
